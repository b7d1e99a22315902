// The UI's words in English and Korean. `t(key, vars)` fills `{name}` placeholders, and chooses
// among plural forms written as `{n, plural, one {# chat} other {# chats}}` (`#` is the number) by
// the language's `Intl.PluralRules`.
// Server errors arrive as `{code, message}` with an English message: `errorText` shows them in the
// UI's language by their code (the sentences are in errors.ts). Other server texts (absent
// reasons, file notes) are shown as they are.

import { ERRORS, PARAM_WORDS } from './errors';

const en = {
  appName: 'Maru',
  newChat: 'New chat',
  chatModel: 'Model for this chat',
  savedTo: 'Saved to {path}',
  nextModel: 'Next request’s model',
  globalModel: 'Default model ({model})',
  modelServerFirst: 'the server’s first',
  demoStart: 'Start the demo model',
  demoStarting: 'Starting the demo model…',
  demoExplained: 'Or try Maru with a tiny demo model (SmolLM2, 135M parameters, on llama.cpp) that runs on this machine. Its answers are weak: for real work, run vLLM, Ollama or LM Studio and set its address in Settings.',
  menuFile: 'Maru',
  menuEdit: 'Edit',
  menuSearch: 'Search chats',
  menuShortcuts: 'Keyboard shortcuts',
  menuQuit: 'Quit Maru',
  menuUndo: 'Undo',
  menuRedo: 'Redo',
  menuCut: 'Cut',
  menuCopy: 'Copy',
  menuPaste: 'Paste',
  menuSelectAll: 'Select all',
  replyReady: 'The reply is ready',
  replyFailedNotice: 'The reply failed',
  newChatIn: 'New chat in {project}',
  projects: 'Projects',
  newProject: 'New project',
  untitled: 'New chat',
  loadMore: 'Load more',
  noChats: 'No chats yet',
  loadOlder: 'Load older messages',
  loading: 'Loading…',
  rename: 'Rename',
  delete: 'Delete',
  cancel: 'Cancel',
  save: 'Save',
  close: 'Close',
  add: 'Add',
  edit: 'Edit',
  copy: 'Copy',
  copied: 'Copied',
  copyCode: 'Copy code',
  codePlain: 'text',
  moveTo: 'Move to',
  moveToProject: 'Move to project…',
  moved: 'Moved to {project}',
  dropToMove: 'Drop to move the chat here',
  projectInstructions: 'Project instructions',
  editInstructions: 'Edit instructions',
  defaultProject: 'Default',
  defaultCannotDelete: 'The Default project cannot be deleted',
  defaultCannotRename: 'The Default project cannot be renamed',
  defaultUsesCustomInstructions: 'The Default project has no instructions of its own: its chats use your custom instructions (Settings → Custom instructions)',
  chatsCount: '{n, plural, one {# chat} other {# chats}}',
  deleteChatTitle: 'Delete this chat?',
  deleteChatBody: '“{title}” and all its messages will be deleted. This cannot be undone.',
  deleteProjectTitle: 'Delete project “{name}”?',
  deleteProjectBody: '{n, plural, =0 {It has no chats.} one {Its # chat moves to the Default project; nothing in it is lost.} other {Its # chats move to the Default project; nothing in them is lost.}}',
  deleteProjectDone: '{n, plural, one {Project deleted; # chat moved to Default} other {Project deleted; # chats moved to Default}}',
  projectName: 'Name',
  projectNamePlaceholder: 'e.g. Family calendar',
  projectInstructionsHint: 'Every chat in this project sees these instructions (section ③ of the system prompt).',
  renameChat: 'Rename chat',
  chatTitle: 'Title',
  settings: 'Settings',
  memory: 'Memory',
  context: 'Context',
  contextInspector: 'Context inspector',
  preset: 'Preset',
  basePrompt: 'Base prompt',
  builtinPresets: 'Built-in',
  yourPresets: 'Yours',
  send: 'Send',
  stop: 'Stop',
  regenerate: 'Regenerate',
  answerAgain: 'Answer again',
  editAndResend: 'Edit and resend',
  saveAndSend: 'Save and send',
  resendNote: 'The edit is sent as a new version; the original and its replies stay one version back.',
  versions: 'Versions',
  versionOf: '{n} / {total}',
  previousVersion: 'Previous version',
  nextVersion: 'Next version',
  composerPlaceholder: 'Message Maru…',
  composerHint: 'Enter sends · Shift+Enter new line',
  emptyTitle: 'What shall we talk about?',
  emptyBody: 'Your messages go to your own model server. Nothing leaves this machine unless your server is elsewhere.',
  emptyInProject: 'This chat will be saved in “{project}”.',
  you: 'You',
  assistant: 'Maru',
  tool: 'Tool',
  reasoning: 'Reasoning',
  toolCall: 'Called {name}',
  toolResult: 'Result of {name}',
  toolError: '{name} failed',
  statusStopped: 'Stopped',
  statusInterrupted: 'Interrupted',
  statusError: 'Error',
  statusStreaming: 'Writing…',
  interruptedNote: 'Maru closed while this reply was being written; the text so far is kept.',
  stoppedNote: 'You stopped this reply.',
  figPrompt: '{n} prompt',
  figCompletion: '{n} out',
  figCached: '{n} cached',
  figTtft: 'TTFT {ms}',
  figSpeed: '{n} tok/s',
  offlineTitle: 'Cannot reach Maru',
  offlineBody: 'The server does not answer. Is `maru serve` still running? Retrying…',
  retry: 'Retry',
  unauthorizedTitle: 'Access token needed',
  unauthorizedBody: 'Open the address that `maru serve` printed when it started: it ends with #token=…',
  tokenWrong: 'The access token was refused. Open the address that `maru serve` printed when it started.',
  // settings
  settingsServer: 'Model server',
  settingsInstructions: 'Instructions',
  settingsPresets: 'Presets',
  settingsAppearance: 'Appearance',
  endpointUrl: 'Server address',
  endpointHint: 'The OpenAI-compatible base URL, up to and including /v1.',
  detectServers: 'Find local servers',
  detecting: 'Looking on ports 8000, 8080, 11434 and 1234…',
  noServersFound: 'No server answered on the usual ports.',
  useServer: 'Use',
  serverDown: 'The model server at {url} does not answer.',
  serverNoModel: 'No model is set, and the server at {url} lists none.',
  serverFound: 'Found {kind} at {url}',
  noModelsListed: 'no models listed',
  useIt: 'Use it',
  noServerFound: 'No model server found on the usual ports (8000, 8080, 11434, 1234). Start one, or set its address in Settings.',
  needsKey: 'needs an API key',
  apiKey: 'API key',
  apiKeySet: 'A key is saved. Type a new one to replace it.',
  apiKeyNone: 'Only for servers that ask for one.',
  removeKey: 'Remove the saved key',
  model: 'Model',
  modelFirst: 'First model the server lists',
  modelsLoading: 'Asking the server for its models…',
  modelsFound: '{n, plural, one {# model} other {# models}} at {url}',
  modelsFailed: 'Could not list models: {error}',
  modelCustom: 'Other…',
  modelName: 'Model name',
  contextLength: 'Context length',
  contextLengthHint: 'Tokens, when the server does not say.',
  sampling: 'Sampling',
  temperature: 'Temperature',
  topP: 'Top P',
  maxTokens: 'Max reply tokens',
  serverDefault: 'server default',
  timeouts: 'Timeouts',
  timeoutDefault: 'default',
  firstByteTimeout: 'First byte (seconds)',
  firstByteTimeoutHint: 'How long to wait for a reply to start: a long prompt on a slow machine can take minutes. 5 – 3600.',
  idleTimeout: 'Pause in a reply (seconds)',
  idleTimeoutHint: 'Silence allowed between two pieces of a reply. 5 – 3600.',
  customInstructions: 'Custom instructions',
  customInstructionsHint: 'Every chat sees these (section ② of the system prompt).',
  customInstructionsPlaceholder: 'e.g. Answer in Korean. Keep code examples short.',
  theme: 'Theme',
  themeSystem: 'System',
  themeLight: 'Light',
  themeDark: 'Dark',
  language: 'Language',
  saved: 'Settings saved',
  newPreset: 'New preset',
  presetName: 'Name',
  presetDescription: 'Description',
  presetPrompt: 'Prompt (replaces the base prompt, section ①)',
  deletePresetTitle: 'Delete preset “{name}”?',
  deletePresetBody: 'Chats that use it go back to the base prompt.',
  noUserPresets: 'You have no presets of your own yet.',
  builtin: 'built-in',
  // memory
  memoryTitle: 'Long-term memory',
  memoryHint: 'Facts about you that every chat sees (section ⑤). Pinned facts come first.',
  memoryEmpty: 'No facts yet. Add one, or let the model propose them.',
  memoryAddPlaceholder: 'e.g. Prefers answers in Korean.',
  pin: 'Pin',
  unpin: 'Unpin',
  pinned: 'Pinned',
  fromChat: 'from chat {id}',
  fromChatTitled: 'from “{title}”',
  openSource: 'Open the chat this came from',
  openSourceMessage: 'Open the chat at the message this came from',
  deleteMemoryTitle: 'Delete this fact?',
  memoryProposed: 'Proposed ({n})',
  memoryProposedHint: 'The model proposed these from your chats. They are not used until you accept them.',
  memorySaved: 'Saved ({n})',
  memoryPending: '{n, plural, one {# proposed fact waits} other {# proposed facts wait}} for review',
  accept: 'Accept',
  dismiss: 'Dismiss',
  editProposal: 'Edit, then accept',
  saveAndAccept: 'Save and accept',
  memoryModeLineOff: 'Memory is off: the model cannot save facts.',
  memoryModeLineReview: 'Review first: the model’s proposals wait here until you accept them.',
  memoryModeLineAuto: 'Automatic: facts the model proposes are saved at once.',
  changeMemoryMode: 'Change',
  settingsMemory: 'Memory',
  memoryMode: 'Facts the model proposes',
  memoryModeHint: 'While it answers, the model can propose facts about you to keep for every chat (section ⑤).',
  memoryModeOff: 'Off',
  memoryModeOffHint: 'The model cannot save facts. You can still add them yourself.',
  memoryModeReview: 'Review first',
  memoryModeReviewHint: 'Proposals wait in the Memory panel; only the ones you accept are used.',
  memoryModeAuto: 'Automatic',
  memoryModeAutoHint: 'Facts the model proposes are saved and used at once.',
  defaultChoice: 'default',
  manageMemory: 'Open the memory panel',
  // context
  contextDraft: 'The context of a chat appears once it exists: send a first message.',
  systemPrompt: 'System prompt',
  fullSystemPrompt: 'Full system prompt',
  sha: 'sha256',
  chars: '{n, plural, one {# char} other {# chars}}',
  tokens: '{n, plural, one {# token} other {# tokens}}',
  tokensEstimate: 'estimated',
  tokensCalibrated: 'estimated, calibrated by the last reply',
  tokensServer: 'counted by the server',
  lastChanged: 'Last changed',
  neverSent: 'Not sent yet: the first message will send this prompt.',
  pendingChange: 'Changes with the next message',
  unchangedSinceSent: 'Unchanged since last sent: the server can reuse its prompt cache.',
  lastReply: 'Last reply',
  size: 'Size',
  promptTokens: 'Prompt tokens',
  completionTokens: 'Reply tokens',
  ttft: 'Time to first token',
  speed: 'Speed',
  checkServer: 'Check the server and list its models',
  cacheReuse: 'Cache reuse',
  cacheUnknown: 'the server did not say',
  present: 'present',
  absent: 'absent',
  source: 'source',
  raw: 'raw',
  injected: 'sent',
  cuts: 'Cut',
  cutDetail: '{raw} → {kept} chars: {reason}',
  showText: 'Show text',
  outdatedTemplate: 'override of an older template',
  overrides: 'Template overrides',
  overrideUpdated: 'updated override',
  overrideEdited: 'edited override',
  overrideCustom: 'custom override',
  yourOverride: 'your override',
  modelContext: '{n} ctx',
  refresh: 'Refresh',
  section1: 'Base prompt or preset',
  section2: 'Custom instructions',
  section3: 'Project instructions',
  section4: 'Attachments',
  section5: 'Memory and date',
  contextWindow: 'Context window',
  windowSize: 'Window',
  planSystem: 'System prompt',
  planSummaries: 'Summaries',
  planHistory: 'Chat history',
  planReserve: 'Reserved for the reply',
  planFree: 'Free',
  planOver: 'Over by',
  planAria: 'Next request: {parts}, of a {context}-token window',
  compactsNext: 'Older turns will be summarised before the next reply, to fit the window.',
  compactNow: 'Compact now',
  compactNowHint: 'Summarise every turn but the last one now. Your messages stay as they are; only what the model is sent changes.',
  compactDone: 'The older turns are summarised; the next request sends the summary in their place.',
  compactNothing: 'Nothing to compact: only the last turn is left.',
  windowUnknown: 'The model’s context window is unknown, so Maru cannot plan how the next request fits it.',
  windowHowToSet: 'Set it in Settings → Model server → Context length.',
  openSettingsContext: 'Open Settings',
  summaries: 'Summaries ({n})',
  summariesHint: 'In requests, these stand in for the chat’s older turns. The messages themselves stay stored and shown.',
  summaryTurnsOne: 'replaces 1 turn',
  summaryTurns: 'replaces {n, plural, one {# turn} other {# turns}}',
  summaryWritten: 'written {when}',
  // files
  files: 'Files',
  filesCount: 'Files: {n} (this chat {own}, project {project})',
  filesTitle: 'Files',
  filesHint: 'While it answers, the model can search this chat’s files and its project’s (section ④).',
  chatFilesHeading: 'This chat',
  projectFilesHeading: 'Project “{project}”',
  fromProject: 'project',
  fromProjectTitle: 'Attached to the project “{project}”: every chat in it sees this file',
  noChatFiles: 'No files in this chat. Attach one with the paperclip, drop it on the chat, or paste an image.',
  noProjectFiles: 'No files in this project.',
  attachFiles: 'Attach files',
  addFiles: 'Add files',
  manageProjectFiles: 'Manage project files',
  projectFiles: 'Project files',
  projectFilesTitle: 'Files of “{project}”',
  projectFilesHint: 'Every chat in this project can search these files.',
  projectFilesMenu: 'Files…',
  dropFiles: 'Drop files to attach them to this chat',
  fileUploading: 'Uploading…',
  fileIndexing: 'Indexing…',
  fileReady: 'Ready',
  fileFailed: 'Failed',
  download: 'Download',
  downloadFile: 'Download {name}',
  deleteFile: 'Delete {name}',
  removeFile: 'Remove {name} from this chat',
  deleteFileTitle: 'Delete “{name}”?',
  deleteFileBody: 'The model will no longer see this file. This cannot be undone.',
  deleteProjectFileBody: 'No chat in the project will see this file any more. This cannot be undone.',
  pagesCount: '{n, plural, one {# page} other {# pages}}',
  fileTooLarge: '{name} is larger than the {mb} MB limit set in Settings.',
  filesSettings: 'Files',
  memoryBudget: 'Room for facts (characters)',
  memoryBudgetHint: 'How much of the prompt long-term memory may take; facts past it are found with search_memory.',
  promptBudget: 'System prompt budget (characters)',
  promptBudgetHint: 'The whole system prompt; sections are cut from the last back when it is over.',
  attachmentMaxMb: 'Largest file (MB)',
  attachmentMaxMbHint: 'Larger files are refused. 1 – 1024.',
  attachmentTextMaxChars: 'Text indexed per file (characters)',
  attachmentTextMaxCharsHint: 'At most this much of a file’s text can be searched; the rest is cut, with a note on the file. 10,000 – 100,000,000.',
  kind_text: 'Text',
  kind_markdown: 'Markdown',
  kind_code: 'Code',
  kind_csv: 'CSV',
  kind_json: 'JSON',
  kind_html: 'HTML',
  kind_pdf: 'PDF',
  kind_image: 'Image',
  // search
  searchChats: 'Search chats',
  searchLabel: 'Search all chats ({keys})',
  searchResults: 'Results',
  searching: 'Searching…',
  searchNone: 'No chat matches “{q}”.',
  clearSearch: 'Clear search',
  titleMatch: 'Title',
  serverSettings: 'Model server settings',
  // keyboard shortcuts
  kbTitle: 'Keyboard shortcuts',
  kbAnywhere: 'Anywhere',
  kbComposer: 'Message box',
  kbSearchBox: 'Search box',
  kbEditing: 'Editing a message',
  kbSearch: 'Search every chat',
  kbNewChat: 'New chat',
  kbShortcuts: 'Show keyboard shortcuts',
  kbStop: 'Stop the reply being written',
  kbSend: 'Send the message',
  kbNewLine: 'New line',
  kbChooseHit: 'Choose a result',
  kbOpenHit: 'Open the chosen result',
  kbClearSearch: 'Clear the search',
  kbSaveAndSend: 'Save and send again',
  kbCancelEdit: 'Cancel editing',
  // misc
  confirm: 'Confirm',
  nothingToSend: 'Type a message first.',
  imagesSent: '{n, plural, one {# image} other {# images}} sent with this message',
  turnRunning: 'A reply is already being written in this chat.',
  // export, backup, import
  exportMarkdown: 'Export as Markdown',
  exportJson: 'Export as JSON',
  exportZip: 'Export as zip',
  exportSaved: 'Saved {name}',
  settingsData: 'Data',
  dataBackupHeading: 'Back up',
  dataBackupHint: 'One zip file with every chat, project, memory, setting, attached file and prompt override. The API key is left out: set it again after restoring.',
  backUpEverything: 'Back up everything',
  backingUp: 'Backing up…',
  dataRestoreHeading: 'Restore',
  dataRestoreHint: 'Maru restores a backup from a terminal, into a new empty folder (the running app owns its own folder). Then start Maru with --data-dir pointing at that folder.',
  dataImportHeading: 'Import a chat',
  dataImportHint: 'A chat exported by Maru as JSON comes back as a new chat: in its project when one of that name exists, else in Default.',
  importChat: 'Import a chat…',
  chatImported: 'Imported “{title}”',
  importNotJson: 'This file is not JSON. Choose a chat that Maru exported as JSON.',
} as const;

export type Key = keyof typeof en;
type Dict = Record<Key, string>;

const ko: Dict = {
  appName: '마루',
  newChat: '새 대화',
  chatModel: '이 대화의 모델',
  savedTo: '{path}에 저장했습니다',
  nextModel: '다음 요청의 모델',
  globalModel: '기본 모델 ({model})',
  modelServerFirst: '서버의 첫 모델',
  demoStart: '데모 모델 시작',
  demoStarting: '데모 모델을 시작하는 중…',
  demoExplained: '이 컴퓨터에서 돌아가는 아주 작은 데모 모델(SmolLM2, 1억 3500만 매개변수, llama.cpp)로 마루를 써 볼 수도 있습니다. 답의 질은 낮습니다. 제대로 쓰려면 vLLM, Ollama, LM Studio를 실행하고 설정에서 주소를 입력하세요.',
  menuFile: '마루',
  menuEdit: '편집',
  menuSearch: '대화 검색',
  menuShortcuts: '키보드 단축키',
  menuQuit: '마루 끝내기',
  menuUndo: '실행 취소',
  menuRedo: '다시 실행',
  menuCut: '잘라내기',
  menuCopy: '복사',
  menuPaste: '붙여넣기',
  menuSelectAll: '모두 선택',
  replyReady: '답이 준비되었습니다',
  replyFailedNotice: '답을 받지 못했습니다',
  newChatIn: '{project}에 새 대화',
  projects: '프로젝트',
  newProject: '새 프로젝트',
  untitled: '새 대화',
  loadMore: '더 보기',
  noChats: '아직 대화가 없습니다',
  loadOlder: '이전 메시지 불러오기',
  loading: '불러오는 중…',
  rename: '이름 바꾸기',
  delete: '삭제',
  cancel: '취소',
  save: '저장',
  close: '닫기',
  add: '추가',
  edit: '편집',
  copy: '복사',
  copied: '복사됨',
  copyCode: '코드 복사',
  codePlain: '텍스트',
  moveTo: '이동',
  moveToProject: '프로젝트로 이동…',
  moved: '{project}(으)로 옮겼습니다',
  dropToMove: '여기에 놓으면 대화를 옮깁니다',
  projectInstructions: '프로젝트 지침',
  editInstructions: '지침 편집',
  defaultProject: '기본',
  defaultCannotDelete: '기본 프로젝트는 삭제할 수 없습니다',
  defaultCannotRename: '기본 프로젝트는 이름을 바꿀 수 없습니다',
  defaultUsesCustomInstructions: '기본 프로젝트에는 따로 지침이 없습니다. 이 프로젝트의 대화는 사용자 지침을 따릅니다 (설정 → 사용자 지침)',
  chatsCount: '대화 {n}개',
  deleteChatTitle: '이 대화를 삭제할까요?',
  deleteChatBody: '“{title}”과(와) 모든 메시지가 삭제됩니다. 되돌릴 수 없습니다.',
  deleteProjectTitle: '“{name}” 프로젝트를 삭제할까요?',
  deleteProjectBody: '대화 {n}개는 기본 프로젝트로 옮겨지며, 내용은 그대로 남습니다.',
  deleteProjectDone: '프로젝트를 삭제했습니다. 대화 {n}개를 기본으로 옮겼습니다',
  projectName: '이름',
  projectNamePlaceholder: '예: 가족 일정',
  projectInstructionsHint: '이 프로젝트의 모든 대화가 이 지침을 봅니다 (시스템 프롬프트 ③).',
  renameChat: '대화 이름 바꾸기',
  chatTitle: '제목',
  settings: '설정',
  memory: '기억',
  context: '컨텍스트',
  contextInspector: '컨텍스트 검사기',
  preset: '프리셋',
  basePrompt: '기본 프롬프트',
  builtinPresets: '내장',
  yourPresets: '내 프리셋',
  send: '보내기',
  stop: '중지',
  regenerate: '다시 생성',
  answerAgain: '다시 답하기',
  editAndResend: '편집 후 다시 보내기',
  saveAndSend: '저장하고 보내기',
  resendNote: '수정한 메시지는 새 버전으로 보내지고, 원래 메시지와 그 답변은 이전 버전으로 남습니다.',
  versions: '버전',
  versionOf: '{n} / {total}',
  previousVersion: '이전 버전',
  nextVersion: '다음 버전',
  composerPlaceholder: '마루에게 메시지…',
  composerHint: 'Enter 보내기 · Shift+Enter 줄바꿈',
  emptyTitle: '무엇에 대해 이야기할까요?',
  emptyBody: '메시지는 사용자의 모델 서버로만 갑니다. 서버가 다른 곳에 있지 않다면 이 컴퓨터를 떠나지 않습니다.',
  emptyInProject: '이 대화는 “{project}”에 저장됩니다.',
  you: '나',
  assistant: '마루',
  tool: '도구',
  reasoning: '추론',
  toolCall: '{name} 호출',
  toolResult: '{name} 결과',
  toolError: '{name} 실패',
  statusStopped: '중지됨',
  statusInterrupted: '중단됨',
  statusError: '오류',
  statusStreaming: '작성 중…',
  interruptedNote: '답을 쓰는 도중 마루가 종료되었습니다. 그때까지의 내용은 남아 있습니다.',
  stoppedNote: '이 답을 중지했습니다.',
  figPrompt: '프롬프트 {n}',
  figCompletion: '출력 {n}',
  figCached: '캐시 {n}',
  figTtft: '첫 토큰 {ms}',
  figSpeed: '{n} 토큰/초',
  offlineTitle: '마루에 연결할 수 없습니다',
  offlineBody: '서버가 응답하지 않습니다. `maru serve`가 실행 중인가요? 다시 시도하는 중…',
  retry: '다시 시도',
  unauthorizedTitle: '접속 토큰이 필요합니다',
  unauthorizedBody: '`maru serve`가 시작할 때 출력한 주소를 여세요. 주소 끝에 #token=… 이 있습니다.',
  tokenWrong: '접속 토큰이 거부되었습니다. `maru serve`가 시작할 때 출력한 주소를 여세요.',
  settingsServer: '모델 서버',
  settingsInstructions: '지침',
  settingsPresets: '프리셋',
  settingsAppearance: '화면',
  endpointUrl: '서버 주소',
  endpointHint: 'OpenAI 호환 기본 URL (/v1 포함).',
  detectServers: '로컬 서버 찾기',
  detecting: '8000, 8080, 11434, 1234 포트를 확인하는 중…',
  noServersFound: '일반적인 포트에서 응답한 서버가 없습니다.',
  useServer: '사용',
  serverDown: '{url}의 모델 서버가 응답하지 않습니다.',
  serverNoModel: '설정된 모델이 없고, {url} 서버도 모델을 알려 주지 않습니다.',
  serverFound: '{kind} 서버를 찾았습니다: {url}',
  noModelsListed: '알려 준 모델 없음',
  useIt: '이 서버 사용',
  noServerFound: '흔히 쓰는 포트(8000, 8080, 11434, 1234)에서 모델 서버를 찾지 못했습니다. 서버를 시작하거나 설정에서 주소를 입력하세요.',
  needsKey: 'API 키 필요',
  apiKey: 'API 키',
  apiKeySet: '저장된 키가 있습니다. 바꾸려면 새 키를 입력하세요.',
  apiKeyNone: '키를 요구하는 서버에만 필요합니다.',
  removeKey: '저장된 키 삭제',
  model: '모델',
  modelFirst: '서버가 처음 알려 주는 모델',
  modelsLoading: '서버에 모델 목록을 묻는 중…',
  modelsFound: '{url}에 모델 {n}개',
  modelsFailed: '모델 목록을 가져오지 못했습니다: {error}',
  modelCustom: '직접 입력…',
  modelName: '모델 이름',
  contextLength: '컨텍스트 길이',
  contextLengthHint: '서버가 알려 주지 않을 때의 토큰 수.',
  sampling: '샘플링',
  temperature: '온도',
  topP: 'Top P',
  maxTokens: '최대 답변 토큰',
  serverDefault: '서버 기본값',
  timeouts: '시간 제한',
  timeoutDefault: '기본값',
  firstByteTimeout: '첫 응답까지 (초)',
  firstByteTimeoutHint: '답이 시작되기까지 기다리는 시간입니다. 느린 컴퓨터에서 긴 프롬프트는 몇 분이 걸리기도 합니다. 5 – 3600.',
  idleTimeout: '답 중간의 멈춤 (초)',
  idleTimeoutHint: '답의 두 조각 사이에 허용하는 침묵입니다. 5 – 3600.',
  customInstructions: '사용자 지침',
  customInstructionsHint: '모든 대화가 이 지침을 봅니다 (시스템 프롬프트 ②).',
  customInstructionsPlaceholder: '예: 한국어로 답하세요. 코드 예시는 짧게.',
  theme: '테마',
  themeSystem: '시스템',
  themeLight: '밝게',
  themeDark: '어둡게',
  language: '언어',
  saved: '설정을 저장했습니다',
  newPreset: '새 프리셋',
  presetName: '이름',
  presetDescription: '설명',
  presetPrompt: '프롬프트 (기본 프롬프트 ①을 대신합니다)',
  deletePresetTitle: '“{name}” 프리셋을 삭제할까요?',
  deletePresetBody: '이 프리셋을 쓰던 대화는 기본 프롬프트로 돌아갑니다.',
  noUserPresets: '아직 직접 만든 프리셋이 없습니다.',
  builtin: '내장',
  memoryTitle: '장기 기억',
  memoryHint: '모든 대화가 보는 사용자에 관한 사실입니다 (시스템 프롬프트 ⑤). 고정한 사실이 먼저 옵니다.',
  memoryEmpty: '아직 기억한 사실이 없습니다. 직접 추가하거나 모델이 제안하게 하세요.',
  memoryAddPlaceholder: '예: 한국어 답변을 선호함.',
  pin: '고정',
  unpin: '고정 해제',
  pinned: '고정됨',
  fromChat: '대화 {id}에서',
  fromChatTitled: '“{title}”에서',
  openSource: '이 사실이 나온 대화 열기',
  openSourceMessage: '이 사실이 나온 메시지로 대화 열기',
  deleteMemoryTitle: '이 사실을 삭제할까요?',
  memoryProposed: '제안됨 ({n})',
  memoryProposedHint: '모델이 대화에서 제안한 사실입니다. 수락하기 전에는 쓰이지 않습니다.',
  memorySaved: '저장됨 ({n})',
  memoryPending: '검토를 기다리는 제안 {n}개',
  accept: '수락',
  dismiss: '거절',
  editProposal: '고친 뒤 수락',
  saveAndAccept: '저장하고 수락',
  memoryModeLineOff: '기억이 꺼져 있습니다: 모델은 사실을 저장할 수 없습니다.',
  memoryModeLineReview: '먼저 검토: 모델의 제안은 수락할 때까지 여기서 기다립니다.',
  memoryModeLineAuto: '자동: 모델이 제안한 사실은 바로 저장됩니다.',
  changeMemoryMode: '변경',
  settingsMemory: '기억',
  memoryMode: '모델이 제안하는 사실',
  memoryModeHint: '모델은 답하는 동안 모든 대화에서 쓸 사용자에 관한 사실을 제안할 수 있습니다 (시스템 프롬프트 ⑤).',
  memoryModeOff: '끄기',
  memoryModeOffHint: '모델은 사실을 저장할 수 없습니다. 직접 추가할 수는 있습니다.',
  memoryModeReview: '먼저 검토',
  memoryModeReviewHint: '제안은 기억 패널에서 기다리며, 수락한 것만 쓰입니다.',
  memoryModeAuto: '자동',
  memoryModeAutoHint: '모델이 제안한 사실이 바로 저장되고 쓰입니다.',
  defaultChoice: '기본값',
  manageMemory: '기억 패널 열기',
  contextDraft: '대화가 만들어지면 컨텍스트가 보입니다. 첫 메시지를 보내세요.',
  systemPrompt: '시스템 프롬프트',
  fullSystemPrompt: '전체 시스템 프롬프트',
  sha: 'sha256',
  chars: '{n}자',
  tokens: '{n} 토큰',
  tokensEstimate: '추정',
  tokensCalibrated: '추정, 마지막 응답으로 보정',
  tokensServer: '서버가 계산',
  lastChanged: '마지막 변경',
  neverSent: '아직 보내지 않았습니다. 첫 메시지와 함께 이 프롬프트가 갑니다.',
  pendingChange: '다음 메시지에서 바뀜',
  unchangedSinceSent: '마지막으로 보낸 뒤 그대로입니다. 서버가 프롬프트 캐시를 다시 쓸 수 있습니다.',
  lastReply: '마지막 답',
  size: '크기',
  promptTokens: '프롬프트 토큰',
  completionTokens: '답변 토큰',
  ttft: '첫 토큰까지',
  speed: '속도',
  checkServer: '서버를 확인하고 모델 목록 가져오기',
  cacheReuse: '캐시 재사용',
  cacheUnknown: '서버가 알려 주지 않음',
  present: '포함',
  absent: '없음',
  source: '출처',
  raw: '원본',
  injected: '전송',
  cuts: '잘림',
  cutDetail: '{raw} → {kept}자: {reason}',
  showText: '내용 보기',
  outdatedTemplate: '이전 버전 템플릿을 덮어쓴 파일',
  overrides: '템플릿 덮어쓰기',
  overrideUpdated: '새 버전으로 바꾼 덮어쓰기',
  overrideEdited: '직접 고친 덮어쓰기',
  overrideCustom: '직접 만든 덮어쓰기',
  yourOverride: '내가 덮어쓴 파일',
  modelContext: '컨텍스트 {n}',
  refresh: '새로 고침',
  section1: '기본 프롬프트 또는 프리셋',
  section2: '사용자 지침',
  section3: '프로젝트 지침',
  section4: '첨부 파일',
  section5: '기억과 날짜',
  contextWindow: '컨텍스트 창',
  windowSize: '창 크기',
  planSystem: '시스템 프롬프트',
  planSummaries: '요약',
  planHistory: '대화 기록',
  planReserve: '답변용 예약',
  planFree: '남음',
  planOver: '초과',
  planAria: '다음 요청: {parts} (컨텍스트 창 {context} 토큰 중)',
  compactsNext: '창에 맞추기 위해, 다음 답변 전에 오래된 턴을 먼저 요약합니다.',
  compactNow: '지금 압축',
  compactNowHint: '마지막 턴을 뺀 모든 턴을 지금 요약합니다. 메시지는 그대로 두고, 모델에 보내는 내용만 바뀝니다.',
  compactDone: '오래된 턴을 요약했습니다. 다음 요청부터 그 턴 대신 요약을 보냅니다.',
  compactNothing: '압축할 것이 없습니다. 마지막 턴만 남아 있습니다.',
  windowUnknown: '모델의 컨텍스트 창 크기를 알 수 없어서 다음 요청이 어떻게 들어갈지 계획할 수 없습니다.',
  windowHowToSet: '설정 → 모델 서버 → 컨텍스트 길이에서 지정하세요.',
  openSettingsContext: '설정 열기',
  summaries: '요약 ({n})',
  summariesHint: '요청에서는 이 요약이 대화의 오래된 턴을 대신합니다. 메시지 자체는 그대로 저장되고 표시됩니다.',
  summaryTurnsOne: '턴 1개를 대신함',
  summaryTurns: '턴 {n}개를 대신함',
  summaryWritten: '{when} 작성',
  files: '파일',
  filesCount: '파일 {n}개 (이 대화 {own}, 프로젝트 {project})',
  filesTitle: '파일',
  filesHint: '모델은 답하는 동안 이 대화의 파일과 프로젝트의 파일을 검색할 수 있습니다 (시스템 프롬프트 ④).',
  chatFilesHeading: '이 대화',
  projectFilesHeading: '“{project}” 프로젝트',
  fromProject: '프로젝트',
  fromProjectTitle: '“{project}” 프로젝트에 첨부된 파일: 프로젝트의 모든 대화가 봅니다',
  noChatFiles: '이 대화에 파일이 없습니다. 클립 버튼으로 첨부하거나, 대화에 끌어다 놓거나, 이미지를 붙여 넣으세요.',
  noProjectFiles: '이 프로젝트에 파일이 없습니다.',
  attachFiles: '파일 첨부',
  addFiles: '파일 추가',
  manageProjectFiles: '프로젝트 파일 관리',
  projectFiles: '프로젝트 파일',
  projectFilesTitle: '“{project}”의 파일',
  projectFilesHint: '이 프로젝트의 모든 대화가 이 파일들을 검색할 수 있습니다.',
  projectFilesMenu: '파일…',
  dropFiles: '파일을 놓으면 이 대화에 첨부합니다',
  fileUploading: '올리는 중…',
  fileIndexing: '색인 중…',
  fileReady: '준비됨',
  fileFailed: '실패',
  download: '내려받기',
  downloadFile: '{name} 내려받기',
  deleteFile: '{name} 삭제',
  removeFile: '이 대화에서 {name} 빼기',
  deleteFileTitle: '“{name}”을(를) 삭제할까요?',
  deleteFileBody: '모델이 더 이상 이 파일을 보지 않습니다. 되돌릴 수 없습니다.',
  deleteProjectFileBody: '프로젝트의 어떤 대화도 이 파일을 더 이상 보지 않습니다. 되돌릴 수 없습니다.',
  pagesCount: '{n}쪽',
  fileTooLarge: '{name}은(는) 설정의 최대 크기 {mb} MB보다 큽니다.',
  filesSettings: '파일',
  memoryBudget: '기억에 쓸 공간 (글자 수)',
  memoryBudgetHint: '장기 기억이 프롬프트에서 차지할 수 있는 양입니다. 넘는 사실은 search_memory로 찾습니다.',
  promptBudget: '시스템 프롬프트 예산 (글자 수)',
  promptBudgetHint: '시스템 프롬프트 전체의 한도입니다. 넘으면 뒤쪽 섹션부터 줄입니다.',
  attachmentMaxMb: '파일 최대 크기 (MB)',
  attachmentMaxMbHint: '이보다 큰 파일은 받지 않습니다. 1 – 1024.',
  attachmentTextMaxChars: '파일당 색인할 텍스트 (글자 수)',
  attachmentTextMaxCharsHint: '파일 텍스트 중 이만큼까지만 검색할 수 있습니다. 나머지는 잘리고, 파일에 그 사실이 표시됩니다. 10,000 – 100,000,000.',
  kind_text: '텍스트',
  kind_markdown: '마크다운',
  kind_code: '코드',
  kind_csv: 'CSV',
  kind_json: 'JSON',
  kind_html: 'HTML',
  kind_pdf: 'PDF',
  kind_image: '이미지',
  searchChats: '대화 검색',
  searchLabel: '모든 대화 검색 ({keys})',
  searchResults: '검색 결과',
  searching: '찾는 중…',
  searchNone: '“{q}”와(과) 맞는 대화가 없습니다.',
  clearSearch: '검색 지우기',
  titleMatch: '제목',
  serverSettings: '모델 서버 설정',
  kbTitle: '키보드 단축키',
  kbAnywhere: '어디서나',
  kbComposer: '메시지 입력창',
  kbSearchBox: '검색창',
  kbEditing: '메시지 편집 중',
  kbSearch: '모든 대화 검색',
  kbNewChat: '새 대화',
  kbShortcuts: '키보드 단축키 보기',
  kbStop: '쓰고 있는 답 멈추기',
  kbSend: '메시지 보내기',
  kbNewLine: '줄바꿈',
  kbChooseHit: '결과 고르기',
  kbOpenHit: '고른 결과 열기',
  kbClearSearch: '검색 지우기',
  kbSaveAndSend: '저장하고 다시 보내기',
  kbCancelEdit: '편집 취소',
  confirm: '확인',
  nothingToSend: '먼저 메시지를 입력하세요.',
  imagesSent: '이 메시지와 함께 보낸 이미지 {n}개',
  turnRunning: '이 대화에서 이미 답을 쓰고 있습니다.',
  exportMarkdown: '마크다운으로 내보내기',
  exportJson: 'JSON으로 내보내기',
  exportZip: 'zip으로 내보내기',
  exportSaved: '{name} 파일을 저장했습니다',
  settingsData: '데이터',
  dataBackupHeading: '백업',
  dataBackupHint: '모든 대화, 프로젝트, 기억, 설정, 첨부 파일, 프롬프트 수정본을 zip 파일 하나에 담습니다. API 키는 빠지므로 복원한 뒤 다시 입력하세요.',
  backUpEverything: '모두 백업하기',
  backingUp: '백업하는 중…',
  dataRestoreHeading: '복원',
  dataRestoreHint: '백업은 터미널에서 비어 있는 새 폴더로 복원합니다(실행 중인 마루는 자기 폴더를 쓰고 있으므로). 그다음 --data-dir로 그 폴더를 지정해 마루를 실행하세요.',
  dataImportHeading: '대화 가져오기',
  dataImportHint: '마루가 JSON으로 내보낸 대화를 새 대화로 가져옵니다. 같은 이름의 프로젝트가 있으면 그 프로젝트에, 없으면 기본 프로젝트에 들어갑니다.',
  importChat: '대화 가져오기…',
  chatImported: '“{title}” 대화를 가져왔습니다',
  importNotJson: '이 파일은 JSON이 아닙니다. 마루가 JSON으로 내보낸 대화를 고르세요.',
};

/** Every dictionary, by language (read by the tests too). */
export const dicts: Readonly<Record<string, Readonly<Dict>>> = { en, ko };
let current: Dict = en;
let currentLang = 'en';

/** Sets the UI's language (English for one it does not have), and `lang` on <html>, which the
 *  stylesheet's Korean line breaking (`html:lang(ko)`) and the browser's fonts follow. */
export function setLanguage(lang: string): void {
  current = dicts[lang] ?? en;
  currentLang = dicts[lang] ? lang : 'en';
  document.documentElement.lang = currentLang;
}

// ---- which language: the user's choice, else the browser's (or the system's, in the desktop window)
//
// The server's settings always hold a language: "en" until someone sets one (its default,
// `Language::En` in store/settings.rs), so "en" there cannot tell "never chosen" from "chose
// English". The settings dialog therefore also notes, in this browser's localStorage, that the
// user picked a language (`rememberLanguageChoice`, called by `saveSettings` for a patch that
// sets one; the dialog sends one only when the user changed the choice). The UI then shows:
// - the server's language when it is not the default (someone chose it, here or elsewhere),
//   or when the user chose one in this browser (English included);
// - otherwise the browser's preferred language (Korean when it prefers Korean, else English).
// Nothing is written to the server until the user chooses, so a first run in a Korean browser
// stays "unchosen" and keeps following the browser. A choice of English made in another browser
// is not seen here (the server cannot tell it from the default): this browser follows its own
// language until the user chooses here too.

/** The server's language until one is set (`Language::En`). */
export const DEFAULT_LANGUAGE = 'en';
const CHOSEN_KEY = 'maru.language';

/** The browser's preferred languages, most preferred first ("ko-KR", "en-US"). */
function preferredLanguages(): readonly string[] {
  if (typeof navigator === 'undefined') return [];
  const list = navigator.languages?.length ? navigator.languages : [navigator.language];
  return list.filter((l): l is string => typeof l === 'string' && l !== '');
}

/** The first of `preferred` that the UI has, by its primary subtag ("ko-KR" is Korean); English
 *  when none is. */
export function browserLanguage(preferred: readonly string[] = preferredLanguages()): string {
  for (const tag of preferred) {
    const primary = tag.toLowerCase().split(/[-_]/)[0];
    if (dicts[primary]) return primary;
  }
  return DEFAULT_LANGUAGE;
}

/** The language the user picked in this browser, or null when they never did (or storage is off). */
export function chosenLanguage(): string | null {
  try {
    const lang = localStorage.getItem(CHOSEN_KEY);
    return lang && dicts[lang] ? lang : null;
  } catch {
    return null;
  }
}

/** Notes that the user picked `lang` (in the settings dialog). */
export function rememberLanguageChoice(lang: string): void {
  try {
    localStorage.setItem(CHOSEN_KEY, lang);
  } catch {
    // storage can be off: the choice is still saved on the server, and a non-default one followed
  }
}

/** The language to show for the settings' `saved` one (see above). */
export function uiLanguage(saved: string, chosen: string | null = chosenLanguage(), preferred: readonly string[] = preferredLanguages()): string {
  if (saved !== DEFAULT_LANGUAGE || chosen !== null) return saved;
  return browserLanguage(preferred);
}

/** Before the settings arrive: the language last chosen here, else the browser's. */
export function startLanguage(): string {
  return chosenLanguage() ?? browserLanguage();
}

export function language(): string {
  return currentLang;
}

export function t(key: Key, vars?: Record<string, string | number>): string {
  let s: string = current[key] ?? en[key];
  if (vars) {
    s = plurals(s, vars);
    for (const [k, v] of Object.entries(vars)) s = s.split(`{${k}}`).join(String(v));
  }
  return s;
}

/** `{n, plural, =0 {…} one {…} other {…}}`: the form for the number (exact `=N` first, then its category). */
function plurals(s: string, vars: Record<string, string | number>): string {
  return s.replace(/\{(\w+), plural,((?:\s*=?\w+ \{[^{}]*\})+)\s*\}/g, (whole, name: string, body: string) => {
    const v = vars[name];
    if (v === undefined) return whole;
    const forms = new Map<string, string>();
    for (const m of body.matchAll(/(=?\w+) \{([^{}]*)\}/g)) forms.set(m[1], m[2]);
    // A count already formatted ("1,234") is read back as a number for the choice.
    const n = typeof v === 'number' ? v : Number(String(v).replace(/[,\s]/g, ''));
    const category = Number.isFinite(n) ? new Intl.PluralRules(currentLang).select(n) : 'other';
    const form = forms.get(`=${n}`) ?? forms.get(category) ?? forms.get('other') ?? '';
    return form.split('#').join(String(v));
  });
}

/**
 * An error from the server (or the UI's own `offline`/`bad_response`) in the UI's language.
 * English: the server's message, which is the most specific. Korean: the sentence for the code,
 * then the server's message in parentheses when it carries specifics the sentence lacks: always
 * for codes marked `detail` (names, URLs, reasons), otherwise when it has a number the sentence
 * does not. Codes marked `detail: 'names'` show only the addresses and quoted names the message
 * holds, so no English shows (the whole message when it holds none). An unknown code: the
 * server's message as it is.
 */
export function errorText(e: { code: string; message: string; params?: Record<string, string> }): string {
  const words = ERRORS[e.code];
  const message = e.message.trim();
  if (currentLang === 'en') return message || words?.en || e.code;
  if (!words) return message || e.code;
  const named = words.named !== undefined && e.params ? withParams(words.named, e.params) : null;
  if (named !== null) return named;
  const sentence = currentLang === 'ko' ? words.ko : words.en;
  if (!message) return sentence;
  const numbers = message.match(/\d+(?:[.,]\d+)*/g) ?? [];
  const names = words.detail === 'names' ? namesIn(message) : [];
  if (names.length) return `${sentence} (${names.join(', ')})`;
  const specific = words.detail || numbers.some((n) => !sentence.includes(n));
  return specific ? `${sentence} (${message})` : sentence;
}

/** `sentence` with each `{name}` replaced by its param (numbers grouped, codes in words); null
 *  when one is missing. */
function withParams(sentence: string, params: Record<string, string>): string | null {
  let missing = false;
  const text = sentence.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) {
      missing = true;
      return '';
    }
    const word = PARAM_WORDS[name]?.[value];
    if (word) return currentLang === 'ko' ? word.ko : word.en;
    return /^\d+$/.test(value) ? Number(value).toLocaleString(currentLang) : value;
  });
  return missing ? null : text;
}

/** The URLs and the "quoted" names in a server message, in order, each once. */
function namesIn(message: string): string[] {
  const found: string[] = [];
  for (const m of message.matchAll(/https?:\/\/[^\s"'()]+|"([^"]+)"/g)) {
    const name = m[1] !== undefined ? `“${m[1]}”` : m[0].replace(/[.,:;]+$/, '');
    if (!found.includes(name)) found.push(name);
  }
  return found;
}
