//! A command line as people paste it into a tool server's Command (`node ~/mcp/index.js stdio`,
//! `npx -y "@scope/server" --dir "My Notes"`), split as a POSIX shell would: words at spaces,
//! quotes keep what they hold together (and are removed), a backslash escapes the next character.
//! Run whole, such a line is a program that does not exist ("No such file or directory").

use serde::{Deserialize, Serialize};

use crate::error::{Code, Error, Result};

/// A command line split: the program to run, and each argument.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct CommandLine {
    pub command: String,
    pub args: Vec<String>,
}

/// Splits `line` by shell rules: `invalid_command_line` when a quote is left open or nothing
/// is there to run.
pub fn split(line: &str) -> Result<CommandLine> {
    let words = shlex::split(line.trim()).ok_or_else(|| {
        Error::invalid(Code::InvalidCommandLine, "the command line has a quote that is not closed, or ends in a lone backslash")
    })?;
    let mut words = words.into_iter();
    let command =
        words.next().filter(|c| !c.is_empty()).ok_or_else(|| Error::invalid(Code::InvalidCommandLine, "the command line is empty"))?;
    Ok(CommandLine { command, args: words.collect() })
}

/// Whether a Command holds more than a program: words a shell would split it into.
pub fn has_arguments(command: &str) -> bool {
    split(command).is_ok_and(|c| !c.args.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        let c = split(line).unwrap();
        std::iter::once(c.command).chain(c.args).collect()
    }

    #[test]
    fn a_pasted_line_splits_into_the_program_and_its_arguments_by_shell_rules() {
        assert_eq!(words("node /home/me/mcp/build/index.js stdio"), ["node", "/home/me/mcp/build/index.js", "stdio"]);
        assert_eq!(
            words(r#"npx -y "@modelcontextprotocol/server-filesystem" "/Users/me/My Notes""#),
            ["npx", "-y", "@modelcontextprotocol/server-filesystem", "/Users/me/My Notes"]
        );
        assert_eq!(words("uvx 'mcp-server-git' --repository '/tmp/it'\"'\"'s'"), ["uvx", "mcp-server-git", "--repository", "/tmp/it's"]);
        assert_eq!(words(r"python3 server.py --name My\ Server"), ["python3", "server.py", "--name", "My Server"], "an escaped space");
        assert_eq!(
            words("  docker   run  -i --rm  mcp/fetch  "),
            ["docker", "run", "-i", "--rm", "mcp/fetch"],
            "runs of spaces are one break"
        );
        assert_eq!(words(r#""/Applications/My Tools/server""#), ["/Applications/My Tools/server"], "a quoted program path stays whole");
    }

    #[test]
    fn an_open_quote_or_nothing_is_refused_with_a_code() {
        for bad in [r#"npx -y "@scope/server"#, "node 'index.js", "", "   "] {
            let e = split(bad).unwrap_err();
            assert_eq!(e.code(), "invalid_command_line", "{bad:?} is refused, not run as a program: {e}");
        }
        assert!(has_arguments("node index.js") && !has_arguments("node") && !has_arguments(r#""/My Apps/server""#));
    }
}
