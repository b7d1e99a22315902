//! What looks like a secret: API keys and tokens, passwords, private keys, card numbers and
//! account numbers. Never stored as a long-term fact, whoever asks (`memory::refuse_secret`):
//! facts are sent to the model in every request of every chat, so a secret there leaks
//! everywhere. An imported tool server's variable that looks like one is kept back for the user
//! to see (`tools::mcp_config`).

use std::sync::LazyLock;

use regex::Regex;

/// What kind of secret a text holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Secret {
    Key,
    Password,
    CardNumber,
    AccountNumber,
}

impl Secret {
    /// The kind, as the UI names it (`secret_refused`'s `kind`).
    pub fn code(self) -> &'static str {
        match self {
            Secret::Key => "key",
            Secret::Password => "password",
            Secret::CardNumber => "card_number",
            Secret::AccountNumber => "account_number",
        }
    }

    pub fn reason(self) -> &'static str {
        match self {
            Secret::Key => "it looks like an API key or token",
            Secret::Password => "it looks like a password or credential",
            Secret::CardNumber => "it looks like a card number",
            Secret::AccountNumber => "it looks like an account number",
        }
    }
}

/// The kind of secret `text` seems to hold, or `None`.
pub fn find(text: &str) -> Option<Secret> {
    static KEYS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(concat!(
            r"(?i)\b(sk|pk|rk)-[a-z0-9_\-]{16,}|\bgh[pousr]_[A-Za-z0-9]{20,}|\bAKIA[0-9A-Z]{16}\b|\bxox[abposr]-[A-Za-z0-9\-]{10,}",
            r"|\bAIza[0-9A-Za-z_\-]{30,}|\beyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.|-----BEGIN [A-Z ]*PRIVATE KEY-----",
            r"|\bhf_[A-Za-z0-9]{20,}|\bglpat-[A-Za-z0-9_\-]{16,}"
        ))
        .expect("the key pattern compiles")
    });
    static PASSWORDS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)(password|passwd|passcode|pin code|api[ _-]?key|secret|token|비밀번호|암호|패스워드|인증번호)\s*(\bis\b|=|:|은|는|이|가)\s*\S{4,}")
            .expect("the password pattern compiles")
    });
    static LONG_TOKEN: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b[A-Za-z0-9_\-]{32,}\b").expect("compiles"));
    static DIGITS: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\d[\d \-]{8,}\d").expect("compiles"));

    if KEYS.is_match(text) {
        return Some(Secret::Key);
    }
    if PASSWORDS.is_match(text) {
        return Some(Secret::Password);
    }
    // A long run of letters and digits mixed is a token, not a word.
    if LONG_TOKEN.find_iter(text).any(|m| {
        let s = m.as_str();
        s.chars().any(|c| c.is_ascii_digit()) && s.chars().any(|c| c.is_ascii_alphabetic())
    }) {
        return Some(Secret::Key);
    }
    for m in DIGITS.find_iter(text) {
        let digits: Vec<u32> = m.as_str().chars().filter_map(|c| c.to_digit(10)).collect();
        if (13..=19).contains(&digits.len()) && luhn(&digits) {
            return Some(Secret::CardNumber);
        }
        // Bank account numbers: 10 to 16 digits, usually written with hyphens.
        if (10..=16).contains(&digits.len()) && m.as_str().contains('-') && !looks_like_phone(m.as_str()) {
            return Some(Secret::AccountNumber);
        }
    }
    None
}

fn luhn(digits: &[u32]) -> bool {
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &d)| {
            if i % 2 == 1 {
                if d * 2 > 9 {
                    d * 2 - 9
                } else {
                    d * 2
                }
            } else {
                d
            }
        })
        .sum();
    sum.is_multiple_of(10)
}

/// 010-1234-5678 and +82 10 1234 5678 are phone numbers, not accounts.
fn looks_like_phone(s: &str) -> bool {
    let groups: Vec<&str> = s.split(['-', ' ']).filter(|g| !g.is_empty()).collect();
    groups.len() == 3 && groups[0].len() <= 3 && groups[2].len() == 4
}

#[cfg(test)]
mod tests {
    use super::find;

    #[test]
    fn secrets_are_recognised() {
        for secret in [
            "My OpenAI key is sk-proj-abcdefghijklmnop1234",
            "token ghp_abcdefghijklmnopqrstuvwxyz123456",
            "AWS AKIAABCDEFGHIJKLMNOP",
            "password: hunter22",
            "내 비밀번호는 qwer1234!",
            "card 4111 1111 1111 1111",
            "신한은행 계좌 110-123-456789",
            "deploy with 9f2c4e7a1b3d5f6e8a0c2e4b6d8f0a1c3e5b7d9f",
        ] {
            assert!(find(secret).is_some(), "{secret:?} must never become a long-term fact");
        }
    }

    #[test]
    fn ordinary_facts_pass() {
        for fact in [
            "Prefers answers in Korean.",
            "Runs vLLM on a DGX Spark with 128 GB of memory.",
            "Daughter Mina was born in 2019.",
            "Phone is 010-1234-5678.",
            "Works on the password-reset feature of their web app.",
            "Uses the Qwen2.5-7B-Instruct model.",
        ] {
            assert_eq!(find(fact), None, "{fact:?} is an ordinary fact");
        }
    }
}
