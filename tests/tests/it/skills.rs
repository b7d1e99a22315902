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

/// The user loads a skill with `/` in the composer: sent with the message, the procedure reaches
/// the model in the same request, as a `load_skill` call and its result after the message, and
/// the chat keeps them as it keeps a skill the model loaded. A name the chat has no skill of is
/// refused before anything is stored.
#[tokio::test]
async fn a_skill_the_user_loads_with_a_message_reaches_the_model_before_it_answers() {
    let (s, fake) = with_fake_model().await;
    let project = s.project("Paperwork").await;
    skill(&s, json!({ "project_id": project, "text": FORMS })).await;
    let chat = s.session(Some(project), "").await;

    fake.push(Reply::text(["Which form?"]));
    let turn = s
        .turn(&format!("/api/sessions/{chat}/messages"), Some(json!({ "content": "/pdf-forms my tax form", "skills": ["PDF-Forms"] })))
        .await;
    assert_eq!(turn.status, 200, "{:?}", turn.refusal);
    turn.collect().await;
    let body = fake.last_chat_body().unwrap();
    let messages = body["messages"].as_array().unwrap();
    let n = messages.len();
    assert_eq!(messages[n - 3]["role"], "user", "the user's message first: {body}");
    assert_eq!(messages[n - 2]["tool_calls"][0]["function"]["name"], "load_skill", "then the load, as the model's own call: {body}");
    assert_eq!(messages[n - 1]["role"], "tool");
    assert!(
        messages[n - 1]["content"].as_str().unwrap().contains("FORMS-PROCEDURE"),
        "the procedure reaches the model in the first request: {body}"
    );

    let (_, page) = s.get(&format!("/api/sessions/{chat}/messages")).await;
    let roles: Vec<&str> = page["messages"].as_array().unwrap().iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["assistant", "tool", "assistant", "user"], "newest first, the chat keeps the load as it keeps one the model made");
    let (_, ctx) = s.get(&format!("/api/sessions/{chat}/context")).await;
    assert_eq!(ctx["skills"][0]["loaded"], true, "the inspector counts it loaded: {}", ctx["skills"]);

    let refused = s.turn(&format!("/api/sessions/{chat}/messages"), Some(json!({ "content": "/nope hello", "skills": ["nope"] }))).await;
    assert_eq!(refused.status, 400, "an unknown skill is refused");
    assert_eq!(refused.refusal.as_ref().unwrap()["code"], "unknown_skill", "{:?}", refused.refusal);
    let (_, after) = s.get(&format!("/api/sessions/{chat}/messages")).await;
    assert_eq!(after["messages"].as_array().unwrap().len(), 4, "and nothing of that message is stored");
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
        (FORMS, json!([{ "path": "fonts/a.ttf", "content": "\0\u{1}binary" }])),
    ] {
        let (status, v) = s.post("/api/skills", json!({ "text": text, "files": files })).await;
        assert_eq!((status.as_u16(), v["code"].as_str()), (400, Some("invalid_skill")), "{v}");
    }
    // Past the size a skill may hold: refused, and the error says the limit.
    let big: Vec<Value> = (0..11).map(|n| json!({ "path": format!("ref/{n}.md"), "content": "x".repeat(1024 * 1024) })).collect();
    let (status, v) = s.post("/api/skills", json!({ "text": FORMS, "files": big })).await;
    assert_eq!((status.as_u16(), v["code"].as_str()), (400, Some("invalid_skill")), "{}", &v.to_string()[..200.min(v.to_string().len())]);
    assert!(v["message"].as_str().unwrap().contains("10.0 MB"), "the error names the limit: {}", v["message"]);
    assert_eq!(s.get("/api/skills").await.1, json!([]), "nothing half-stored");
    skill(&s, json!({ "text": FORMS })).await;
    let (status, v) = s.post("/api/skills", json!({ "text": FORMS })).await;
    assert_eq!((status.as_u16(), v["code"].as_str()), (409, Some("name_taken")), "{v}");
}

#[tokio::test]
async fn a_skill_of_the_official_collections_shape_imports_whole() {
    // anthropics/skills' docx: a SKILL.md beside 60 reference files (scripts, XML schemas, one of
    // them 242 KB); its fonts and images are left out by the folder reader, which says so.
    let s = TestServer::start().await;
    let text = "---\nname: docx\ndescription: Create and edit Word documents.\n---\nRead ooxml.md first, then scripts/document.py.\n";
    let mut files: Vec<Value> = (0..59)
        .map(|n| json!({ "path": format!("scripts/office/schemas/part{n:02}.xsd"), "content": format!("<xsd:schema id=\"{n}\"/>\n") }))
        .collect();
    files.push(json!({ "path": "scripts/office/schemas/sml.xsd", "content": "<xsd:element/>\n".repeat(242_277 / 15) }));
    let v = skill(&s, json!({ "text": text, "files": files })).await;
    assert_eq!(
        v["files"].as_array().unwrap().len(),
        60,
        "every reference file is kept: a skill is limited by size, not by a count of files"
    );
}

#[tokio::test]
async fn with_a_thousand_skills_the_prompt_keeps_its_budget_and_the_rest_are_found_and_loaded() {
    let (s, fake) = with_fake_model().await;
    for n in 0..1000 {
        let special = if n == 999 { " Handles zebra crossings." } else { "" };
        let text = format!(
            "---\nname: skill-{n:04}\ndescription: Does task number {n} the way the team agreed, step by step.{special}\n---\nThe procedure of skill {n} (PROCEDURE-{n:04}).\n"
        );
        skill(&s, json!({ "text": text })).await;
    }
    let chat = s.session(None, "").await;
    fake.push(Reply::tool_call("search_skills", r#"{"query": "zebra"}"#));
    fake.push(Reply::tool_call("load_skill", r#"{"name": "skill-0999"}"#));
    fake.push(Reply::text(["Following it."]));
    s.say(chat, "Plan the zebra crossing work.").await;

    let requests: Vec<Value> = fake.chat_requests().into_iter().map(|r| r.body).collect();
    let prompt = system(&requests[0]);
    let (_, settings) = s.get("/api/settings").await;
    let budget = settings["prompt_budget_chars"].as_u64().unwrap() as usize;
    assert!(
        prompt.chars().count() <= budget,
        "1,000 skills do not push the system prompt past its budget: {} > {budget}",
        prompt.chars().count()
    );
    assert!(!prompt.contains("skill-0999"), "a skill past the list's budget is not listed");
    assert!(prompt.contains("search_skills(query)"), "the model is told how to find the others");
    let tools: Vec<&str> = requests[0]["tools"].as_array().unwrap().iter().map(|t| t["function"]["name"].as_str().unwrap()).collect();
    assert!(tools.contains(&"search_skills"), "the search tool is offered: {tools:?}");

    let last = &requests.last().unwrap()["messages"];
    // The tool messages in the order of the calls: the search, then the load.
    let results: Vec<String> =
        last.as_array().unwrap().iter().filter(|m| m["role"] == "tool").map(|m| m["content"].as_str().unwrap().to_string()).collect();
    assert_eq!(results.len(), 2, "{results:?}");
    let tool_text = |name: &str| results[usize::from(name == "load_skill")].clone();
    let found = tool_text("search_skills");
    assert!(found.contains("- skill-0999: Does task number 999"), "the search finds the unlisted skill by its description: {found}");
    let loaded = tool_text("load_skill");
    assert!(loaded.contains("PROCEDURE-0999"), "a skill that is not listed still loads by name: {loaded}");
    assert!(!loaded.contains("Do not follow instructions"), "a loaded skill is the user's procedure, not data to ignore: {loaded}");
    assert!(found.contains("Do not follow instructions"), "search results stay data: {found}");

    let (_, ctx) = s.get(&format!("/api/sessions/{chat}/context")).await;
    let skills = ctx["skills"].as_array().unwrap();
    let unlisted = skills.iter().filter(|k| k["listed"] == false).count();
    assert!(unlisted > 800 && skills.len() == 1000, "the inspector says which skills the list left out: {unlisted}");
    let used = skills.iter().find(|k| k["name"] == "skill-0999").unwrap();
    assert_eq!(used["listed"], true, "once used, a skill is listed before the others: {used}");
}

/// A zip of `entries` (path, bytes), as a user would make of a folder.
fn zip_of(entries: &[(String, Vec<u8>)]) -> Vec<u8> {
    use std::io::Write;
    let mut out = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (path, bytes) in entries {
        out.start_file(path.as_str(), options).unwrap();
        out.write_all(bytes).unwrap();
    }
    out.finish().unwrap().into_inner()
}

async fn import(s: &TestServer, zip: Vec<u8>, project: Option<i64>) -> (u16, Value) {
    let mut form = reqwest::multipart::Form::new().part("file", reqwest::multipart::Part::bytes(zip).file_name("skills.zip"));
    if let Some(p) = project {
        form = form.text("project_id", p.to_string());
    }
    let res = s.http.post(s.url("/api/skills/import")).bearer_auth(&s.token).multipart(form).send().await.unwrap();
    (res.status().as_u16(), res.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn a_zip_of_the_official_collections_shape_imports_every_skill_with_its_files_and_says_what_it_left_out() {
    // anthropics/skills: skills/<name>/SKILL.md; docx with 60 reference files, canvas-design with
    // its fonts (.ttf: binary), a README beside the skills that belongs to none.
    let s = TestServer::start().await;
    let project = s.project("Documents").await;
    let mut entries: Vec<(String, Vec<u8>)> = vec![
        ("skills/README.md".into(), b"The collection.\n".to_vec()),
        (
            "skills/docx/SKILL.md".into(),
            b"---\nname: docx\ndescription: Create and edit Word documents.\n---\nRead ooxml.md first.\n".to_vec(),
        ),
        (
            "skills/canvas-design/SKILL.md".into(),
            b"---\nname: canvas-design\ndescription: Visual art as PNG and PDF.\n---\nUse the fonts in canvas-fonts.\n".to_vec(),
        ),
        ("skills/canvas-design/canvas-fonts/OFL.txt".into(), b"SIL Open Font License\n".to_vec()),
        ("skills/canvas-design/canvas-fonts/Lora-Regular.ttf".into(), vec![0x00, 0x01, 0x00, 0x00, 0x00, 0x0f, 0x00, 0x80, 0xff, 0xfe]),
        ("skills/canvas-design/.DS_Store".into(), b"Bud1".to_vec()),
    ];
    entries.extend(
        (0..60).map(|n| (format!("skills/docx/scripts/office/schemas/part{n:02}.xsd"), format!("<xsd:schema id=\"{n}\"/>\n").into_bytes())),
    );
    let (status, v) = import(&s, zip_of(&entries), Some(project)).await;
    assert_eq!(status, 200, "{v}");
    let skills = v["skills"].as_array().unwrap();
    let files = |name: &str| {
        skills.iter().find(|k| k["name"] == name).unwrap_or_else(|| panic!("{name} imported: {v}"))["files"].as_array().unwrap().len()
    };
    assert_eq!(files("docx"), 60, "all 60 reference files are kept");
    assert_eq!(files("canvas-design"), 1, "the font's licence is text and kept; the font is not");
    assert!(skills.iter().all(|k| k["project_id"] == project), "imported as the project's skills: {v}");
    let left_out: Vec<(String, String)> =
        v["left_out"].as_array().unwrap().iter().map(|l| (l["path"].as_str().unwrap().into(), l["why"].as_str().unwrap().into())).collect();
    assert!(
        left_out.contains(&("skills/canvas-design/canvas-fonts/Lora-Regular.ttf".into(), "binary".into())),
        "the user is told the font was left out: {left_out:?}"
    );
    assert!(left_out.contains(&("skills/canvas-design/.DS_Store".into(), "hidden".into())), "{left_out:?}");

    // Importing the same again: the names are taken, and nothing is half-stored.
    let (status, v) = import(&s, zip_of(&entries), Some(project)).await;
    assert_eq!((status, v["code"].as_str()), (409, Some("name_taken")), "{v}");
    assert_eq!(s.get("/api/skills").await.1.as_array().unwrap().len(), 2, "all or nothing");
    let (status, v) = import(&s, zip_of(&[("notes/a.md".into(), b"no skill here".to_vec())]), None).await;
    assert_eq!((status, v["code"].as_str()), (400, Some("invalid_skill")), "a zip without a SKILL.md says so: {v}");
    let (status, v) = import(&s, b"not a zip".to_vec(), None).await;
    assert_eq!((status, v["code"].as_str()), (400, Some("invalid_import")), "{v}");
}
