// The words of Settings → Share with other apps: what other apps (Claude Desktop, Claude Code,
// editors) may use of Maru through its MCP server, how to connect them, and the calls they made.

import type { Words } from './words';

export const en = {
  settingsSharing: 'Share with other apps',
  sharingHint: 'Apps that speak MCP (Claude Desktop, Claude Code, Cursor and others) can use what you turn on here, through `maru mcp` or `/mcp` on `maru serve`. Nothing is shared until you turn it on.',
  sharingWhat: 'What other apps may use',
  sharingMemoryRead: 'Search your saved facts',
  sharingMemoryReadHint: 'search_memory, while memory is not turned off.',
  sharingMemoryWrite: 'Save, change and forget facts',
  sharingMemoryWriteHint: 'remember, update_memory, forget. While memory is reviewed, what they save waits for you in the memory panel, as your model’s proposals do.',
  sharingChats: 'Search your chats',
  sharingChatsHint: 'search_chats: titles and messages of every kept chat, in every project.',
  sharingProjects: 'Search the files of these projects',
  sharingProjectsHint: 'search_project_files, for the projects checked here only.',
  sharingNoProjects: 'You have no projects yet.',
  sharingConnect: 'Connect an app',
  sharingConnectHint: 'Claude Code: run the first line. Claude Desktop: add the second to the mcpServers of claude_desktop_config.json. Over HTTP (maru serve), an app connects to /mcp with the access token.',
  sharingCalls: 'Recent calls',
  sharingCallsEmpty: 'No app has called Maru yet.',
  sharingCallsRefresh: 'Refresh',
  sharingCallRefused: 'refused: {error}',
  sharingUnnamedClient: 'an app that gave no name',
} as const;

export const ko: Words<typeof en> = {
  settingsSharing: '다른 앱과 공유',
  sharingHint: 'MCP를 쓰는 앱(Claude Desktop, Claude Code, Cursor 등)은 여기서 켠 것을 `maru mcp`나 `maru serve`의 `/mcp`로 쓸 수 있습니다. 켜기 전에는 아무것도 공유하지 않습니다.',
  sharingWhat: '다른 앱이 쓸 수 있는 것',
  sharingMemoryRead: '저장된 사실 검색',
  sharingMemoryReadHint: 'search_memory. 기억이 꺼져 있지 않을 때만.',
  sharingMemoryWrite: '사실 저장, 수정, 삭제',
  sharingMemoryWriteHint: 'remember, update_memory, forget. 기억을 검토하도록 했다면, 다른 앱이 저장한 것은 내 모델의 제안처럼 기억 패널에서 검토를 기다립니다.',
  sharingChats: '대화 검색',
  sharingChatsHint: 'search_chats: 모든 프로젝트의 보관된 대화 제목과 메시지.',
  sharingProjects: '이 프로젝트들의 파일 검색',
  sharingProjectsHint: 'search_project_files. 여기서 고른 프로젝트만.',
  sharingNoProjects: '아직 프로젝트가 없습니다.',
  sharingConnect: '앱 연결하기',
  sharingConnectHint: 'Claude Code: 첫 줄을 실행하세요. Claude Desktop: 둘째 줄을 claude_desktop_config.json의 mcpServers에 넣으세요. HTTP(maru serve)로는 접근 토큰과 함께 /mcp에 연결합니다.',
  sharingCalls: '최근 호출',
  sharingCallsEmpty: '아직 마루를 부른 앱이 없습니다.',
  sharingCallsRefresh: '새로 고침',
  sharingCallRefused: '거절됨: {error}',
  sharingUnnamedClient: '이름을 밝히지 않은 앱',
};
