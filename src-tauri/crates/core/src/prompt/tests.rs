//! The renderer is a pure function: these tests build inputs by hand, no database.

use chrono::NaiveDate;

use super::budget::{self, Budgets};
use super::inputs::{AttachmentInput, BaseInput, MemoryInput, ProjectInput, PromptInputs};
use super::render::render;
use super::{change_reason, SectionId, SnapshotReport, Templates};

fn inputs() -> PromptInputs {
    PromptInputs {
        base: BaseInput::Template { name: "base".into(), label: "prompts/base.md".into() },
        custom_instructions: String::new(),
        project: ProjectInput {
            name: "Default".into(),
            is_default: true,
            instructions: String::new(),
            folder: None,
            files: Default::default(),
        },
        attachments: vec![],
        skills: vec![],
        memories: vec![],
        memory_tools: true,
        today: NaiveDate::from_ymd_opt(2026, 11, 29).unwrap(),
    }
}

fn family(i: &mut PromptInputs) {
    i.project = ProjectInput {
        name: "Family calendar".into(),
        is_default: false,
        instructions: "Look at the family calendar first.".into(),
        folder: None,
        files: Default::default(),
    };
}

fn rendered(i: &PromptInputs) -> super::Rendered {
    render(&Templates::bundled(), &budget::apply(i, &Budgets::default())).unwrap()
}

fn present(r: &super::Rendered) -> Vec<SectionId> {
    r.sections.iter().filter(|s| s.present).map(|s| s.id).collect()
}

#[test]
fn a_bare_default_session_has_base_and_memory_saying_none() {
    let r = rendered(&inputs());
    assert_eq!(present(&r), [SectionId::Base, SectionId::Memory], "② ③ ④ are absent when empty, ① and ⑤ always present");
    assert!(r.text.starts_with("You are Maru"), "① comes first");
    assert!(
        r.text.contains("[Long-term memory]\nnone\nToday is 2026-11-29 (Sunday)."),
        "empty memory says none, with the date: {}",
        r.text
    );
    let absent = r.sections.iter().find(|s| s.id == SectionId::ProjectInstructions).unwrap();
    assert_eq!(absent.absent_reason.as_deref(), Some("the session is in the Default project"), "the inspector says why");
}

#[test]
fn all_five_sections_in_order() {
    let mut i = inputs();
    family(&mut i);
    i.custom_instructions = "Answer in Korean. Keep code examples short.".into();
    i.attachments = vec![
        AttachmentInput { name: "family-notes.md".into(), kind: "Markdown".into(), size_bytes: 2048, pages: None, project: false },
        AttachmentInput { name: "school-calendar.pdf".into(), kind: "PDF".into(), size_bytes: 120_000, pages: Some(12), project: true },
    ];
    i.memories = vec![
        MemoryInput { content: "Prefers answers in Korean.".into(), pinned: false },
        MemoryInput { content: "Runs vLLM on a DGX Spark.".into(), pinned: false },
    ];
    let r = rendered(&i);
    assert_eq!(
        present(&r),
        [SectionId::Base, SectionId::CustomInstructions, SectionId::ProjectInstructions, SectionId::Attachments, SectionId::Memory]
    );
    let pos = |needle: &str| r.text.find(needle).unwrap_or_else(|| panic!("{needle:?} missing from:\n{}", r.text));
    let order = [
        pos("You are Maru"),
        pos("[Custom instructions]\nAnswer in Korean."),
        pos("[Project instructions: Family calendar]\nLook at the family calendar first."),
        pos("[Attachments]\n- family-notes.md (Markdown, 2 KB)\n- school-calendar.pdf (PDF, 118 KB, 12 pages) [project]\nRead them with search_attachment"),
        pos("[Long-term memory]\n- Prefers answers in Korean.\n- Runs vLLM on a DGX Spark.\nToday is 2026-11-29 (Sunday)."),
    ];
    assert!(order.windows(2).all(|w| w[0] < w[1]), "specific text must come after general text: {order:?}\n{}", r.text);
    assert!(!r.text.contains("\n\n\n"), "sections are separated by one blank line:\n{}", r.text);
    assert!(r.text.ends_with("(Sunday)."), "no stray whitespace at the end");
}

#[test]
fn default_project_instructions_are_never_used() {
    let mut i = inputs();
    i.project.instructions = "should not appear".into();
    let r = rendered(&i);
    assert!(!r.text.contains("should not appear"), "Default's instructions must not reach the model");
}

#[test]
fn a_project_without_instructions_has_no_section_three() {
    let mut i = inputs();
    family(&mut i);
    i.project.instructions = "  \n ".into();
    let r = rendered(&i);
    assert!(!r.text.contains("[Project instructions"));
    let s = r.sections.iter().find(|s| s.id == SectionId::ProjectInstructions).unwrap();
    assert!(s.absent_reason.as_deref().unwrap().contains("has no instructions"));
}

#[test]
fn a_preset_replaces_the_base_prompt() {
    let mut i = inputs();
    i.base = BaseInput::Template { name: "presets/code-reviewer".into(), label: "preset: Code reviewer".into() };
    let r = rendered(&i);
    assert!(r.text.starts_with("You are Maru, acting as a careful code reviewer"), "{}", r.text);
    assert!(!r.text.contains("Be direct and accurate"), "the base prompt is replaced, not appended to");
    i.base = BaseInput::UserPreset { key: "user:1".into(), label: "preset: Pirate".into(), text: "Talk like a pirate.".into() };
    assert!(rendered(&i).text.starts_with("Talk like a pirate.\n\n[Long-term memory]"));
}

#[test]
fn user_text_arrives_byte_for_byte() {
    let tricky = "Use <b>bold</b> & \"quotes\" 'single' {{not a template}} `code` — 한국어로 답하세요 🙂\\n";
    let mut i = inputs();
    family(&mut i);
    i.custom_instructions = tricky.into();
    i.project.instructions = tricky.into();
    i.project.name = "<Family> & \"Friends\" 가족 👪".into();
    i.memories = vec![MemoryInput { content: tricky.into(), pinned: true }];
    let r = rendered(&i);
    assert_eq!(r.text.matches(tricky).count(), 3, "no HTML escaping, no template expansion of user text:\n{}", r.text);
    assert!(r.text.contains("[Project instructions: <Family> & \"Friends\" 가족 👪]"));
}

#[test]
fn over_budget_sections_are_cut_at_a_boundary_and_reported() {
    let mut i = inputs();
    family(&mut i);
    i.project.instructions = (0..3000).map(|n| format!("Rule {n}: be nice.\n")).collect();
    i.memories = (0..2000).map(|n| MemoryInput { content: format!("Fact number {n} about the user."), pinned: n == 5 }).collect();
    let r = rendered(&i);
    let project = r.sections.iter().find(|s| s.id == SectionId::ProjectInstructions).unwrap();
    assert_eq!(project.cuts.len(), 1, "the cut is reported");
    assert!(project.raw_chars > project.cuts[0].kept_chars);
    assert!(
        project.text.contains("be nice.\n(…the rest of the project instructions was cut"),
        "cut after a whole line, and the model is told: {}",
        &project.text[project.text.len() - 200..]
    );
    let memory = r.sections.iter().find(|s| s.id == SectionId::Memory).unwrap();
    assert!(memory.text.contains("- Fact number 5 about the user."), "pinned facts survive cuts");
    assert!(memory.text.contains("- Fact number 1999 about the user."), "the newest facts are kept over older ones");
    assert!(memory.text.contains("older facts did not fit"), "the model is told facts are missing");
    assert!(memory.cuts[0].reason.contains("facts kept"), "{:?}", memory.cuts);
    assert!(r.text.chars().count() <= Budgets::default().total + 500, "the whole prompt respects its budget (templates add a little)");
}

#[test]
fn the_total_budget_shrinks_memory_before_instructions() {
    let mut i = inputs();
    family(&mut i);
    i.custom_instructions = "c".repeat(11_000);
    i.project.instructions = "p".repeat(20_000);
    i.memories = (0..400).map(|n| MemoryInput { content: format!("Fact {n} is a sentence of some length."), pinned: false }).collect();
    let budgets = Budgets { total: 40_000, ..Budgets::default() };
    let b = budget::apply(&i, &budgets);
    assert_eq!(b.inputs.custom_instructions.len(), 11_000, "custom instructions are kept whole while memory can give way");
    assert!(b.omitted_memories > 0);
    assert!(b.cuts.iter().any(|c| c.section == SectionId::Memory && c.reason.contains("whole prompt")), "{:?}", b.cuts);
}

#[test]
fn memory_names_search_memory_only_when_the_tool_is_offered() {
    let mut i = inputs();
    i.memories = (0..400).map(|n| MemoryInput { content: format!("Fact {n} is a sentence of some length."), pinned: false }).collect();
    let budgets = Budgets { total: 8_000, ..Budgets::default() };
    let on = render(&Templates::bundled(), &budget::apply(&i, &budgets)).unwrap();
    assert!(on.text.contains("search_memory finds them"), "with memory on, the model is told where the rest is");
    i.memory_tools = false;
    let off = render(&Templates::bundled(), &budget::apply(&i, &budgets)).unwrap();
    assert!(off.text.contains("older facts did not fit here"), "the cut is still said");
    assert!(!off.text.contains("search_memory"), "with memory off the tool is not offered, so the prompt must not name it");
}

#[test]
fn rendering_is_deterministic() {
    let mut i = inputs();
    family(&mut i);
    i.memories = vec![MemoryInput { content: "x".into(), pinned: false }];
    assert_eq!(rendered(&i).text, rendered(&i).text);
    assert_eq!(rendered(&i).sha256, rendered(&i).sha256);
}

#[test]
fn change_reasons_name_the_sections() {
    let report = |i: &PromptInputs| SnapshotReport {
        rendered: rendered(i),
        project_name: i.project.name.clone(),
        base_label: i.base.label().into(),
        date: i.today,
        folder: None,
        unlisted_skills: vec![],
        instruction_files: Default::default(),
    };
    let a = inputs();
    let mut b = a.clone();
    family(&mut b);
    assert_eq!(change_reason(&report(&a), &report(&b)), "③ moved to project \"Family calendar\"");
    let mut c = b.clone();
    c.today = NaiveDate::from_ymd_opt(2026, 11, 30).unwrap();
    assert_eq!(change_reason(&report(&b), &report(&c)), "⑤ the date changed to 2026-11-30");
    let mut d = c.clone();
    d.custom_instructions = "Be brief.".into();
    assert_eq!(change_reason(&report(&c), &report(&d)), "② custom instructions added");
}

/// A project whose folder sends `n` instructions files of `chars` characters each, the farthest
/// (most general) first, as `instruction_files::read` orders them.
fn with_files(i: &mut PromptInputs, n: usize, chars: usize) {
    family(i);
    i.project.files.files = (0..n)
        .map(|k| super::instruction_files::InstructionFile {
            path: format!("/repo/{}AGENTS.md", "sub/".repeat(n - 1 - k)),
            content: (0..chars / 20).map(|l| format!("File {k} line {l:04}.\n")).collect(),
            depth: n - 1 - k,
            imported_by: None,
            raw_chars: None,
        })
        .collect();
}

#[test]
fn instructions_files_count_toward_section_three_and_the_report_names_them() {
    let mut i = inputs();
    with_files(&mut i, 30, 2_000);
    let budgets = Budgets::default();
    let b = budget::apply(&i, &budgets);
    let r = render(&Templates::bundled(), &b).unwrap();
    let three = r.sections.iter().find(|s| s.id == SectionId::ProjectInstructions).unwrap();
    assert!(
        three.injected_chars <= budgets.project_instructions + 200,
        "60,000 characters of files do not escape ③'s budget of {}: {} sent",
        budgets.project_instructions,
        three.injected_chars
    );
    let files_raw: usize = i.project.files.files.iter().map(|f| f.content.chars().count()).sum();
    assert!(three.raw_chars >= files_raw, "the report gives the size before the cut: {} of {files_raw}", three.raw_chars);
    assert!(three.text.contains("Look at the family calendar first."), "the user's own words are kept before the files");
    assert!(three.text.contains("File 29 line"), "the nearest file, the most specific, is kept");
    assert!(!three.text.contains("File 0 line"), "the farthest files give way first");
    let cut = three.cuts.iter().find(|c| c.why.params.get("items").map(String::as_str) == Some("instructions_files"));
    let cut = cut.unwrap_or_else(|| panic!("the cut names the instructions files: {:?}", three.cuts));
    let kept: usize = cut.why.params["kept"].parse().unwrap();
    assert!(kept > 0 && kept < 30 && cut.why.params["of"] == "30", "{:?}", cut.why);
    let left_out: Vec<_> = b.inputs.project.files.skipped.iter().filter(|s| s.why == "budget").collect();
    assert_eq!(b.inputs.project.files.files.len() + left_out.len(), 30, "every file is either sent or listed as left out for the budget");
    let partial: Vec<_> = b.inputs.project.files.files.iter().filter(|f| f.raw_chars.is_some()).collect();
    assert!(partial.len() <= 1, "at most one file is sent cut");
    if let Some(f) = partial.first() {
        assert!(r.text.contains("(…the rest of this file was cut"), "the model is told a file was cut ({})", f.path);
    }
}

#[test]
fn over_the_total_the_files_give_way_before_the_users_own_instructions() {
    let mut i = inputs();
    with_files(&mut i, 10, 2_000);
    i.project.instructions = "p".repeat(3_000);
    i.custom_instructions = "c".repeat(5_000);
    let budgets = Budgets { total: 30_000, ..Budgets::default() };
    let r = render(&Templates::bundled(), &budget::apply(&i, &budgets)).unwrap();
    assert!(
        r.text.chars().count() <= budgets.total + 500,
        "the whole prompt keeps its budget with files in it: {}",
        r.text.chars().count()
    );
    assert!(r.text.contains(&"p".repeat(3_000)), "the project's own instructions are kept whole while files can give way");
    assert!(r.text.contains(&"c".repeat(5_000)), "custom instructions are kept whole while files can give way");
    let three = r.sections.iter().find(|s| s.id == SectionId::ProjectInstructions).unwrap();
    assert!(
        three.cuts.iter().any(|c| c.why.code == maru_error::ReasonCode::TotalBudget),
        "the cut says which budget made it: {:?}",
        three.cuts
    );
}

#[test]
fn a_thousand_skills_keep_the_prompt_within_budget_and_the_ones_in_use_are_listed() {
    let mut i = inputs();
    i.skills = (0..1000)
        .map(|n| super::inputs::SkillInput {
            name: format!("skill-{n:04}"),
            description: format!("Does task number {n} the way the team agreed, step by step, with checks."),
            last_used: (n == 977).then_some(42),
        })
        .collect();
    let budgets = Budgets::default();
    let b = budget::apply(&i, &budgets);
    let r = render(&Templates::bundled(), &b).unwrap();
    let four = r.sections.iter().find(|s| s.id == SectionId::Attachments).unwrap();
    assert!(four.injected_chars <= budgets.skills + 400, "the skills' list keeps its budget: {} characters", four.injected_chars);
    assert!(r.text.chars().count() <= budgets.total, "the whole prompt stays within its budget: {}", r.text.chars().count());
    assert!(four.text.contains("- skill-0977:"), "a skill in use is listed although it sorts late");
    assert!(four.text.contains("- skill-0000:"), "then the others by name, as many as fit");
    let unlisted = b.unlisted_skills.len();
    assert!(unlisted > 900 && b.inputs.skills.len() + unlisted == 1000, "every skill is listed or counted as not listed: {unlisted}");
    assert!(
        four.text.contains(&format!("…and {unlisted} more skills not listed here: search_skills(query)")),
        "the model is told where the rest are"
    );
    assert!(
        four.cuts.iter().any(|c| c.why.params.get("items").map(String::as_str) == Some("skills")),
        "the cut is reported: {:?}",
        four.cuts
    );
}

#[test]
fn a_small_window_gets_a_short_file_list_and_a_prompt_that_fits() {
    let mut i = inputs();
    family(&mut i);
    i.custom_instructions = "Answer in short sentences. ".repeat(200);
    i.attachments = (0..1600)
        .map(|n| AttachmentInput {
            name: format!("src/module_{n}/file_{n}.rs"),
            kind: "text".into(),
            size_bytes: 2_000,
            pages: None,
            project: true,
        })
        .collect();
    i.memories = (0..200).map(|n| MemoryInput { content: format!("Fact {n} is a sentence of some length."), pinned: false }).collect();
    let settings = crate::store::settings::Settings::default();
    let small = Budgets::for_window(&settings, Some(4096), Some(1_000));
    let large = Budgets::for_window(&settings, Some(131_072), None);
    assert!(
        small.attachments < large.attachments,
        "the list of files scales with the window: {} vs {}",
        small.attachments,
        large.attachments
    );
    assert_eq!(large.attachments, Budgets::default().attachments, "and a large window keeps the list's cap");

    let report = super::build(&i, &Templates::bundled(), &small).unwrap();
    let tokens = super::render::estimate_tokens(&report.rendered.text);
    assert!(tokens <= 1_000, "the prompt fits what the window leaves it ({tokens} tokens), however large the folder and the instructions");
    assert!(report.rendered.text.starts_with("You are Maru"), "① is never cut");
    let four = report.rendered.sections.iter().find(|s| s.id == SectionId::Attachments).unwrap();
    let listed = four.cuts.iter().find_map(|c| (c.why.params.get("items").map(String::as_str) == Some("files")).then_some(c.why.clone()));
    let listed = listed.expect("the list of files says it was cut");
    assert_eq!(listed.params["of"], "1600", "it says of how many: {listed:?}");
    assert!(four.text.contains("listed here"), "and the model is told the others exist: {}", four.text);
    assert!(
        report.rendered.sections.iter().flat_map(|s| &s.cuts).any(|c| c.why.code == crate::error::ReasonCode::ContextWindow),
        "the cuts made for the window say so: {:?}",
        report.rendered.sections.iter().flat_map(|s| &s.cuts).collect::<Vec<_>>()
    );
}
