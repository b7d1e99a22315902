//! Tauri's build step (icons, config, capabilities) runs only when the desktop window is built in.
fn main() {
    #[cfg(feature = "desktop")]
    tauri_build::build();
}
