//! A conversation's nodes (ChatGPT's `mapping`, Claude's messages with their parents) as Maru's
//! message tree. Nodes without a message Maru keeps (the empty root, system and tool messages,
//! hidden ones) are left out, and what followed them follows the message before them. The line
//! from the last node shown back to the root is the main line; every other branch is kept, as
//! earlier versions of the message where it parted.

use std::collections::{HashMap, HashSet};

use crate::store::imports::ForeignMessage;
use crate::store::messages::Role;

/// One node as the app stored it.
pub struct Node {
    pub id: String,
    pub parent: Option<String>,
    /// In the order the app made them (the last is the newest version).
    pub children: Vec<String>,
    /// What Maru keeps of it; `None`: left out (and counted when it was a message).
    pub message: Option<Said>,
    /// It held a message that Maru leaves out.
    pub dropped: bool,
}

/// A message Maru keeps.
pub struct Said {
    pub role: Role,
    pub content: String,
    pub model: Option<String>,
    pub created_at: Option<i64>,
}

/// The messages kept, parents first, and how many were left out. `leaf` is the node the app
/// showed last; when it is unknown, the newest branch is followed from the root.
pub fn messages(nodes: Vec<Node>, leaf: Option<&str>, fallback_time: i64) -> (Vec<ForeignMessage>, usize) {
    let index: HashMap<&str, usize> = nodes.iter().enumerate().map(|(i, n)| (n.id.as_str(), i)).collect();
    let parent_of = |i: usize| nodes[i].parent.as_deref().and_then(|p| index.get(p).copied()).filter(|&p| p != i);
    let roots: Vec<usize> = (0..nodes.len()).filter(|&i| parent_of(i).is_none()).collect();
    let children: Vec<Vec<usize>> = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| n.children.iter().filter_map(|c| index.get(c.as_str()).copied()).filter(|&c| parent_of(c) == Some(i)).collect())
        .collect();

    // The main line: up from the leaf (a loop in a damaged export ends the walk).
    let mut main = HashSet::new();
    let leaf = leaf.and_then(|l| index.get(l).copied()).or_else(|| {
        let mut at = *roots.last()?;
        while let Some(&next) = children[at].last() {
            if !main.insert(at) {
                break;
            }
            at = next;
        }
        Some(at)
    });
    main.clear();
    let mut at = leaf;
    while let Some(i) = at {
        if !main.insert(i) {
            break;
        }
        at = parent_of(i);
    }

    // Depth first, parents before children, each child after its elder siblings' branches.
    let mut out: Vec<ForeignMessage> = vec![];
    let mut dropped = 0;
    let mut seen = HashSet::new();
    let mut stack: Vec<(usize, Option<usize>, i64)> = roots.iter().rev().map(|&r| (r, None, fallback_time)).collect();
    let mut nodes: Vec<Node> = nodes;
    while let Some((i, parent, time)) = stack.pop() {
        if !seen.insert(i) {
            continue;
        }
        let node = &mut nodes[i];
        let (kept, time) = match node.message.take() {
            Some(m) => {
                let time = m.created_at.unwrap_or(time);
                out.push(ForeignMessage {
                    parent,
                    role: m.role,
                    content: m.content,
                    model: m.model,
                    created_at: time,
                    main_line: main.contains(&i),
                });
                (Some(out.len() - 1), time)
            }
            None => {
                dropped += usize::from(node.dropped);
                (parent, time)
            }
        };
        stack.extend(children[i].iter().rev().map(|&c| (c, kept, time)));
    }
    if !out.iter().any(|m| m.main_line) {
        newest_line(&mut out);
    }
    (out, dropped)
}

/// When the last node shown held nothing Maru keeps, nor did any before it: the main line is
/// the newest version at each step from the first message.
fn newest_line(messages: &mut [ForeignMessage]) {
    let mut parent = None;
    while let Some(next) = messages.iter().rposition(|m| m.parent == parent) {
        messages[next].main_line = true;
        parent = Some(next);
    }
}
