//! The OpenAPI document served at `GET /api/openapi.json`: the routes' `#[utoipa::path]`s and the
//! JSON types' `ToSchema` derives (see `routes`), plus what holds for every route: the bearer
//! token, the `{code, message}` errors, and fields that are never left out of a response.

use serde_json::{json, Value};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Maru API",
        description = "The API of `maru serve`. Every /api route needs `Authorization: Bearer <token>` (the token `maru serve` \
                       printed at start) and a Host of 127.0.0.1 or localhost (else 400 `bad_host`). Errors are `{code, message}`: \
                       branch on `code`, show `message`."
    ),
    // Enums that only query parameters name: the parameters refer to them by name. The query of
    // the files' list and the model server's codes (without their prefix): the UI names them.
    components(schemas(
        crate::store::memories::MemoryFilter,
        crate::api::export::ExportFormat,
        crate::api::attachments::AttachmentScope,
        crate::error::Code,
        crate::error::UpstreamCode
    )),
    modifiers(&BearerToken),
    security(("bearer" = [])),
    tags(
        (name = "projects"), (name = "sessions"), (name = "messages"),
        (name = "chat", description = "Turns stream their events as Server-Sent Events"),
        (name = "settings"), (name = "memories"), (name = "presets"), (name = "model server"), (name = "meta"),
    )
)]
struct Base;

struct BearerToken;

impl Modify for BearerToken {
    fn modify(&self, doc: &mut utoipa::openapi::OpenApi) {
        let scheme = HttpBuilder::new()
            .scheme(HttpAuthScheme::Bearer)
            .description(Some("The access token `maru serve` printed at start (`--token` or `MARU_TOKEN` to choose it)"))
            .build();
        doc.components.get_or_insert_with(Default::default).add_security_scheme("bearer", SecurityScheme::Http(scheme));
    }
}

/// What the routes are added to.
pub(super) fn base() -> utoipa::openapi::OpenApi {
    Base::openapi()
}

/// The whole document: what the routes (added to [`base`]) say, with what holds for all of them.
pub(super) fn complete(doc: utoipa::openapi::OpenApi) -> Value {
    let mut doc = serde_json::to_value(doc).expect("the OpenAPI document serialises");
    answer_errors_everywhere(&mut doc);
    require_every_field(&mut doc);
    bound_the_settings(&mut doc);
    doc
}

const METHODS: [&str; 5] = ["get", "post", "put", "patch", "delete"];

fn operations(doc: &mut Value) -> impl Iterator<Item = &mut Value> {
    let paths = doc["paths"].as_object_mut().into_iter().flat_map(|p| p.values_mut());
    paths
        .flat_map(|item| item.as_object_mut().into_iter().flat_map(|ops| ops.iter_mut()))
        .filter(|(method, _)| METHODS.contains(&method.as_str()))
        .map(|(_, op)| op)
}

/// Any route can be refused for the token (the guard runs before it) or fail inside Maru.
fn answer_errors_everywhere(doc: &mut Value) {
    let error = |description: &str| {
        json!({
            "description": description,
            "content": { "application/json": { "schema": { "$ref": "#/components/schemas/ErrorBody" } } }
        })
    };
    for op in operations(doc) {
        let Some(responses) = op["responses"].as_object_mut() else { continue };
        responses.entry("401").or_insert_with(|| error("`unauthorized`: missing or wrong access token"));
        responses.entry("500").or_insert_with(|| error("`internal`: something failed inside Maru (details in its log)"));
    }
}

/// Maru's JSON never leaves a field out: an absent value is `null`. The derives call an `Option`
/// field optional, which is what a request body means; every object a response can hold lists all
/// its properties as required, so the UI and scripts may rely on each being there.
fn require_every_field(doc: &mut Value) {
    let mut refs = vec![];
    for op in operations(doc) {
        for response in op["responses"].as_object_mut().into_iter().flat_map(|r| r.values_mut()) {
            for media in response["content"].as_object_mut().into_iter().flat_map(|c| c.values_mut()) {
                require(&mut media["schema"], &mut refs);
            }
        }
    }
    let mut done = std::collections::HashSet::new();
    while let Some(name) = refs.pop() {
        if done.insert(name.clone()) {
            if let Some(schema) = doc["components"]["schemas"].get_mut(&name) {
                require(schema, &mut refs);
            }
        }
    }
}

/// Marks the properties of `schema` and the objects within it required; collects the component
/// schemas it refers to.
fn require(schema: &mut Value, refs: &mut Vec<String>) {
    let Some(map) = schema.as_object_mut() else { return };
    if let Some(name) = map.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/components/schemas/")) {
        refs.push(name.to_string());
    }
    if let Some(props) = map.get_mut("properties").and_then(Value::as_object_mut) {
        props.values_mut().for_each(|p| require(p, refs));
        let names: Vec<Value> = props.keys().cloned().map(Value::String).collect();
        map.insert("required".into(), Value::Array(names));
    }
    for key in ["items", "additionalProperties"] {
        if let Some(inner) = map.get_mut(key) {
            require(inner, refs);
        }
    }
    for key in ["prefixItems", "oneOf", "anyOf", "allOf"] {
        map.get_mut(key).and_then(Value::as_array_mut).into_iter().flatten().for_each(|s| require(s, refs));
    }
}

/// Every numeric setting's bounds, from the one declaration the store checks them by
/// (`settings::BOUNDS`), as `minimum`/`maximum` of the settings' schemas: a client (the UI's
/// settings dialog among them) reads them from the document.
fn bound_the_settings(doc: &mut Value) {
    let bounds = serde_json::to_value(crate::store::settings::BOUNDS).expect("the bounds serialise");
    for schema in ["SettingsPatch", "SettingsView"] {
        let Some(properties) = doc["components"]["schemas"][schema]["properties"].as_object_mut() else { continue };
        for (name, b) in bounds.as_object().into_iter().flatten() {
            if let Some(p) = properties.get_mut(name).and_then(Value::as_object_mut) {
                p.insert("minimum".into(), b["min"].clone());
                p.insert("maximum".into(), b["max"].clone());
            }
        }
    }
}
