pub mod fake_openai;
