//! Maru's integration tests, one module per area, in one test binary: every test binary links the
//! whole stack (~100 MB each), so the areas share one build and one link instead of one per area.
//!
//! A new area is a file in this folder and its `mod` line below, in order. The tiers that need
//! something set up first pick their modules by name (scripts/test.sh): `real_server::` (one at
//! a time, with llama-server) and `tool_servers::` and `mcp_server::` (with the npm MCP packages); without their
//! setup those tests are ignored.

mod api;
mod attachments;
mod backup;
mod changes;
mod chat;
mod connections;
mod crash;
mod demo;
mod hybrid;
mod llm_client;
mod local_api;
mod long_chats;
mod mcp_server;
mod memory;
mod project_folder;
mod races;
mod real_server;
mod reliability;
mod search;
mod skills;
mod small_windows;
mod spec;
mod switching;
mod temporary_chats;
mod titles;
mod token_counts;
mod tool_outcomes_as_data;
mod tool_outputs;
mod tool_server_import;
mod tool_servers;
mod versions;
