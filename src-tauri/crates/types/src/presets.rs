//! What creates or changes a prompt preset.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewPreset {
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub prompt: String,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PresetPatch {
    pub name: Option<String>,
    pub description: Option<String>,
    pub prompt: Option<String>,
}
