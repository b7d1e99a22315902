//! A call the model made, as the store keeps it and the API and the model server both read it.
//! It lives here, below the model server's client and the store alike, so neither depends on the
//! other for it.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A call the model made. `arguments` is the raw JSON text as the model streamed it (the caller
/// parses it, and can show the raw text when the model wrote invalid JSON).
/// Serialises as `{"id","type":"function","function":{"name","arguments"}}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments: String,
}

#[derive(Serialize, Deserialize, utoipa::ToSchema)]
struct FunctionCallWire {
    name: String,
    /// JSON text as the model wrote it, possibly invalid.
    #[serde(default)]
    #[schema(required)]
    arguments: String,
}

#[derive(Serialize, Deserialize, utoipa::ToSchema)]
#[schema(description = "A call the model made")]
struct ToolCallWire {
    id: String,
    #[serde(rename = "type", default = "function_type")]
    #[schema(required, schema_with = function_type_schema)]
    kind: String,
    #[schema(inline)]
    function: FunctionCallWire,
}

fn function_type() -> String {
    "function".into()
}

fn function_type_schema() -> utoipa::openapi::Object {
    utoipa::openapi::ObjectBuilder::new().schema_type(utoipa::openapi::Type::String).enum_values(Some(["function"])).build()
}

/// `ToolCall` is documented as what it serialises to: the wire struct.
impl utoipa::PartialSchema for ToolCall {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        <ToolCallWire as utoipa::PartialSchema>::schema()
    }
}

impl utoipa::ToSchema for ToolCall {}

impl Serialize for ToolCall {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        ToolCallWire {
            id: self.id.clone(),
            kind: function_type(),
            function: FunctionCallWire { name: self.name.clone(), arguments: self.arguments.clone() },
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for ToolCall {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let w = ToolCallWire::deserialize(d)?;
        Ok(ToolCall { id: w.id, name: w.function.name, arguments: w.function.arguments })
    }
}
