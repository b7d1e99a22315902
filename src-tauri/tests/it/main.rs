//! Tests of the `maru` command itself, each running the real binary: one test binary for all,
//! as each links the whole stack. The tool-server tier picks `tool_server_orphans::` by name
//! (scripts/test.sh); without the npm tool servers those tests are ignored.

mod support;

mod pdf_child;
mod serve_folder;
mod serve_restore;
mod serve_shutdown;
mod tool_server_orphans;
