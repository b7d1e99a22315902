//! Skills loaded on demand: the prompt lists each skill offered by name and description only;
//! `load_skill` brings its procedure into the conversation once, as a tool result, and
//! `read_skill_file` its reference files. A disabled skill, or one off in the chat's project, is
//! neither listed nor loadable.

use maru_tests::fake_openai::Reply;
use maru_tests::server::{with_fake_model, TestServer};
use serde_json::{json, Value};

const FORMS: &str = "---\nname: pdf-forms\ndescription: Fill in PDF forms from the user's details.\n---\n# Filling a form\n1. List every field with read_skill_file reference/fields.md.\n2. Ask for what is missing, one question at a time (the FORMS-PROCEDURE).\n";
const TRIP: &str = "---\nname: trip-plan\ndescription: Plan a family trip day by day.\n---\nPlan each day with one morning and one afternoon activity (the TRIP-PROCEDURE).\n";

async fn skill(s: &TestServer, body: Value) -> Value {
    let (status, v) = s.post("/api/skills", body).await;
    assert_eq!(status, 200, "{v}");
    v
}

fn system(body: &Value) -> String {
    body["messages"][0]["content"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn a_skill_is_listed_by_name_loaded_once_and_its_files_read() {
    let (s, fake) = with_fake_model().await;
    let project = s.project("Paperwork").await;
    skill(&s, json!({ "text": TRIP })).await;
    let forms = skill(&s, json!({ "project_id": project, "text": FORMS, "files": [{ "path": "reference/fields.md", "content": "Name, address, date of birth." }] })).await;
    assert_eq!(forms["name"], "pdf-forms");
    let chat = s.session(Some(project), "").await;

    fake.push(Reply::tool_call("load_skill", r#"{"name": "pdf-forms"}"#));
    fake.push(Reply::tool_call("read_skill_file", r#"{"name": "pdf-forms", "path": "reference/fields.md"}"#));
    fake.push(Reply::text(["Let us fill it in."]));
    s.say(chat, "Help me with this tax form.").await;
    fake.push(Reply::text(["Next field."]));
    s.say(chat, "Done with the name.").await;

    let requests: Vec<Value> = fake.chat_requests().into_iter().map(|r| r.body).collect();
    let prompt = system(&requests[0]);
    assert!(prompt.contains("- pdf-forms: Fill in PDF forms from the user's details."), "the prompt lists the project's skill: {prompt}");
    assert!(prompt.contains("- trip-plan: Plan a family trip day by day."), "and the global one: {prompt}");
    assert!(!prompt.contains("FORMS-PROCEDURE"), "but not their procedures, which cost the window only once loaded");
    let tools: Vec<&str> = requests[0]["tools"].as_array().unwrap().iter().map(|t| t["function"]["name"].as_str().unwrap()).collect();
    assert!(tools.contains(&"load_skill") && tools.contains(&"read_skill_file"), "{tools:?}");
    let last = requests.last().unwrap()["messages"].to_string();
    assert_eq!(
        last.matches("FORMS-PROCEDURE").count(),
        1,
        "a turn later the procedure is in the conversation exactly once, as the tool result"
    );
    assert!(last.contains("Name, address, date of birth."), "the reference file was read");

    let (_, ctx) = s.get(&format!("/api/sessions/{chat}/context")).await;
    let listed: Vec<(String, bool)> = ctx["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| (k["name"].as_str().unwrap().to_string(), k["loaded"].as_bool().unwrap()))
        .collect();
    assert_eq!(
        listed,
        [("pdf-forms".to_string(), true), ("trip-plan".to_string(), false)],
        "the inspector says what is offered and loaded"
    );
    assert!(ctx["skills"][0]["body_chars"].as_u64() > Some(50), "{}", ctx["skills"]);
}

#[tokio::test]
async fn a_disabled_skill_or_one_off_in_the_project_is_neither_listed_nor_loadable() {
    let (s, fake) = with_fake_model().await;
    let project = s.project("Holidays").await;
    let trip = skill(&s, json!({ "text": TRIP })).await;
    let forms = skill(&s, json!({ "text": FORMS })).await;
    s.patch(&format!("/api/skills/{}", forms["id"]), json!({ "enabled": false })).await;
    s.patch(&format!("/api/skills/{}", trip["id"]), json!({ "off_in": [project] })).await;

    let here = s.session(Some(project), "").await;
    fake.push(Reply::tool_call("load_skill", r#"{"name": "pdf-forms"}"#));
    fake.push(Reply::text(["ok"]));
    let events = s.say(here, "Fill the form.").await;
    let refused = events.iter().find(|e| e.name == "tool_result").unwrap();
    assert_eq!(refused.data["is_error"], true, "a disabled skill cannot be loaded: {refused:?}");
    assert!(refused.data["content"].as_str().unwrap().contains("no skill named"), "{refused:?}");
    let prompt = system(&fake.chat_requests()[0].body);
    assert!(!prompt.contains("[Skills]"), "neither is listed here: {prompt}");
    let tools = fake.chat_requests()[0].body["tools"].to_string();
    assert!(!tools.contains("load_skill"), "and with nothing to load, the tools are not offered: {tools}");

    let elsewhere = s.session(None, "").await;
    fake.push(Reply::text(["ok"]));
    s.say(elsewhere, "Plan a trip.").await;
    let prompt = system(&fake.last_chat_body().unwrap());
    assert!(prompt.contains("- trip-plan:") && !prompt.contains("pdf-forms"), "the global skill is on outside the project: {prompt}");
}

#[tokio::test]
async fn a_malformed_skill_is_refused_with_a_reason_and_nothing_is_stored() {
    let s = TestServer::start().await;
    for (text, files) in [
        ("no front matter at all", json!([])),
        ("---\nname: x\n---\nbody", json!([])),
        (FORMS, json!([{ "path": "../../etc/passwd", "content": "x" }])),
        (FORMS, json!([{ "path": "a.md", "content": "x".repeat(200_001) }])),
    ] {
        let (status, v) = s.post("/api/skills", json!({ "text": text, "files": files })).await;
        assert_eq!((status.as_u16(), v["code"].as_str()), (400, Some("invalid_skill")), "{v}");
    }
    assert_eq!(s.get("/api/skills").await.1, json!([]), "nothing half-stored");
    skill(&s, json!({ "text": FORMS })).await;
    let (status, v) = s.post("/api/skills", json!({ "text": FORMS })).await;
    assert_eq!((status.as_u16(), v["code"].as_str()), (409, Some("name_taken")), "{v}");
}
