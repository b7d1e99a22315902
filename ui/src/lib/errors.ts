// The UI's words for every error code the server (or the UI itself) can send. The server's
// `message` is English; the UI shows its own sentence for the code in Korean, and the server's
// message in English (it is more specific). See `errorText` in i18n/index.ts.
//
// The tables are checked against the server's lists of codes (`Code`, `UpstreamCode`, generated
// from Rust): a code without words here, or words for a code the server no longer sends, is a
// TypeScript error.

import type { Code, UpstreamCode } from '../backend/generated';

/** One code's sentences. `detail`: the server's message always names something (a file, a
 *  model, a URL, a reason) that the sentence lacks, so Korean shows it too, in parentheses;
 *  `'names'`: what it names is an address or a quoted name, and Korean shows only those.
 *  `named`: the Korean sentence with the error's `params` in it (`{file}`), used when the server
 *  sent every one of them; then nothing of the English message is shown. */
export interface ErrorWords {
  en: string;
  ko: string;
  detail?: boolean | 'names';
  named?: string;
}

/** Params whose values are codes, and the words for them. */
export const PARAM_WORDS: Readonly<Record<string, Readonly<Record<string, { en: string; ko: string }>>>> = {
  kind: {
    key: { en: 'an API key or token', ko: 'API 키나 토큰' },
    password: { en: 'a password or credential', ko: '비밀번호나 인증 정보' },
    card_number: { en: 'a card number', ko: '카드 번호' },
    account_number: { en: 'an account number', ko: '계좌 번호' },
  },
};

const MODEL_SERVER = {
  invalid_url: { en: 'The model server address is not a valid URL. Fix it in Settings.', ko: '모델 서버 주소가 올바른 URL이 아닙니다. 설정에서 고치세요.', detail: true },
  unreachable: { en: 'Cannot reach the model server. Check that it is running and the address in Settings.', ko: '모델 서버에 연결할 수 없습니다. 서버가 켜져 있는지, 설정의 주소가 맞는지 확인하세요.', detail: 'names' },
  dns: { en: 'The model server’s host name could not be found. Check the address in Settings.', ko: '모델 서버의 호스트 이름을 찾을 수 없습니다. 설정의 주소를 확인하세요.', detail: 'names' },
  network: { en: 'A network error cut off the model server. Try again.', ko: '네트워크 오류로 모델 서버와 연결이 끊겼습니다. 다시 시도하세요.', detail: true },
  timeout_connect: { en: 'The model server did not accept the connection in time. Check that it is running.', ko: '모델 서버가 제시간에 연결을 받지 않았습니다. 서버가 켜져 있는지 확인하세요.', detail: true },
  timeout_first_byte: { en: 'The model server took too long to start answering. Try again, or raise the timeout in Settings.', ko: '모델 서버가 답을 시작하는 데 너무 오래 걸렸습니다. 다시 시도하거나 설정에서 대기 시간을 늘리세요.', detail: true },
  timeout_idle: { en: 'The model server stopped sending in the middle of the reply. Try again, or raise the timeout in Settings.', ko: '모델 서버가 답을 쓰다가 멈췄습니다. 다시 시도하거나 설정에서 대기 시간을 늘리세요.', detail: true },
  unauthorized: { en: 'The model server refused the API key. Check the key in Settings.', ko: '모델 서버가 API 키를 거부했습니다. 설정에서 키를 확인하세요.', detail: true },
  unknown_model: { en: 'The model server does not have this model. Choose another model in Settings.', ko: '모델 서버에 이 모델이 없습니다. 설정에서 다른 모델을 고르세요.', detail: 'names' },
  not_found: { en: 'The model server has no such API. Check the address in Settings.', ko: '모델 서버에 해당 API가 없습니다. 설정의 주소를 확인하세요.', detail: true },
  context_too_long: { en: 'The chat is too long for the model. Start a new chat or shorten the message.', ko: '대화가 모델이 받을 수 있는 길이를 넘었습니다. 새 대화를 시작하거나 메시지를 줄이세요.', detail: true },
  rejected: { en: 'The model server refused the request.', ko: '모델 서버가 요청을 거부했습니다.', detail: true },
  server_error: { en: 'The model server failed with an error. Try again, or check its log.', ko: '모델 서버에서 오류가 났습니다. 다시 시도하거나 서버 로그를 확인하세요.', detail: true },
  stream_error: { en: 'The model server reported an error while writing the reply. Try again.', ko: '모델 서버가 답을 쓰는 중에 오류를 알렸습니다. 다시 시도하세요.', detail: true },
  disconnected: { en: 'The model server closed the connection before the reply was finished. Try again.', ko: '답이 끝나기 전에 모델 서버가 연결을 끊었습니다. 다시 시도하세요.', detail: true },
  cancelled: { en: 'The request to the model server was cancelled.', ko: '모델 서버에 보낸 요청이 취소되었습니다.' },
  demo_failed: { en: 'The demo model did not start.', ko: '데모 모델이 시작되지 않았습니다.', detail: true },
  no_model: { en: 'The model server lists no models. Load one, or set the model name in Settings.', ko: '모델 서버에 모델이 없습니다. 모델을 불러오거나 설정에서 모델 이름을 정하세요.', detail: true },
  bad_response: { en: 'The model server sent an answer Maru cannot read.', ko: '모델 서버가 마루가 읽을 수 없는 답을 보냈습니다.', detail: true },
} satisfies Record<UpstreamCode, ErrorWords>;

const MARU = {
  demo_unavailable: { en: 'The demo model is not on this machine.', ko: '이 컴퓨터에는 데모 모델이 없습니다. 마루 소스 폴더에서 `make run`을 실행하면 준비되고, 설정에서 직접 모델 서버를 연결할 수도 있습니다.' },
  // Names, titles and texts.
  invalid_name: { en: 'This name cannot be used.', ko: '이 이름은 쓸 수 없습니다. 한 줄로, 너무 길지 않게 입력하세요.' },
  invalid_model: { en: 'This model name cannot be used.', ko: '이 모델 이름은 쓸 수 없습니다. 한 줄로, 너무 길지 않게 입력하세요.' },
  invalid_title: { en: 'This title cannot be used.', ko: '이 제목은 쓸 수 없습니다. 한 줄로, 너무 길지 않게 입력하세요.' },
  invalid_description: { en: 'This description is too long.', ko: '설명이 너무 깁니다. 줄이세요.' },
  invalid_prompt: { en: 'This prompt cannot be used.', ko: '이 프롬프트는 쓸 수 없습니다. 비어 있지 않게, 너무 길지 않게 입력하세요.' },
  invalid_memory: { en: 'This fact cannot be saved.', ko: '이 기억은 저장할 수 없습니다. 짧은 글로 입력하세요.' },
  invalid_file_name: { en: 'This file name cannot be used.', ko: '이 파일 이름은 쓸 수 없습니다. 파일 이름을 바꾸세요.' },
  invalid_folder: { en: 'This folder cannot be linked: give the full path of a folder Maru can read.', ko: '이 폴더는 연결할 수 없습니다. 마루가 읽을 수 있는 폴더의 전체 경로를 입력하세요.' },
  system_folder: { en: 'This is a system folder (/, /proc, /sys or /dev): its files are not documents, and reading some of them never ends. Link a folder of your own.', ko: '시스템 폴더(/, /proc, /sys, /dev)는 연결할 수 없습니다. 그 안의 파일은 문서가 아니고, 어떤 파일은 읽기가 끝나지 않습니다. 직접 만든 폴더를 연결하세요.' },
  no_server: { en: 'No model server is set up yet: add yours in Settings → Servers, or start the demo model.', ko: '아직 설정된 모델 서버가 없습니다. 설정 → 서버에서 추가하거나 데모 모델을 시작하세요.' },
  name_taken: { en: 'This name is already taken.', ko: '같은 이름이 이미 있습니다. 다른 이름을 쓰세요.', detail: 'names', named: '“{name}” 이름이 이미 있습니다. 다른 이름을 쓰세요.' },
  default_connection: { en: 'The default server cannot be turned off or removed. Make another server the default first.', ko: '기본 서버는 끄거나 지울 수 없습니다. 먼저 다른 서버를 기본으로 정하세요.', detail: 'names', named: '“{name}”은(는) 기본 서버라 끄거나 지울 수 없습니다. 먼저 다른 서버를 기본으로 정하세요.' },
  connection_off: { en: 'That server is turned off. Turn it on in Settings, or choose another model.', ko: '그 서버는 꺼져 있습니다. 설정에서 켜거나 다른 모델을 고르세요.', detail: 'names', named: '“{name}” 서버는 꺼져 있습니다. 설정에서 켜거나 다른 모델을 고르세요.' },
  default_project: { en: 'The Default project cannot be changed this way.', ko: '기본 프로젝트는 이렇게 바꿀 수 없습니다. 모든 대화에 쓸 글은 설정의 사용자 지정 지침에 적으세요.' },
  unknown_preset: { en: 'There is no such preset.', ko: '그런 프리셋이 없습니다. 다른 프리셋을 고르세요.', detail: 'names', named: '“{preset}” 프리셋이 없습니다. 다른 프리셋을 고르세요.' },
  instructions_too_long: { en: 'The instructions are too long.', ko: '지침이 너무 깁니다. 줄이세요.' },
  message_too_long: { en: 'The message is too long.', ko: '메시지가 너무 깁니다. 긴 글은 파일로 첨부하세요.',
    named: '메시지가 너무 깁니다({length}자, 최대 {max}자). 긴 글은 파일로 첨부하세요.' },
  empty_message: { en: 'The message is empty.', ko: '메시지가 비어 있습니다.' },
  secret_refused: { en: 'This looks like a secret, so it is not kept as a fact.', ko: '비밀 정보처럼 보여서 기억으로 저장하지 않습니다. 장기 기억은 모든 대화에 들어가므로 비밀은 넣지 마세요.', detail: true,
    named: '{kind}처럼 보여서 기억으로 저장하지 않습니다. 장기 기억은 모든 대화에 들어가므로 비밀은 넣지 마세요.' },
  memory_off: { en: 'Saving facts is turned off in Settings.', ko: '설정에서 기억 저장이 꺼져 있습니다.' },
  // Chat and replies.
  turn_running: { en: 'A reply is still being written in this chat. Stop it or wait for it to finish.', ko: '이 대화에서 아직 답을 쓰고 있습니다. 멈추거나 끝날 때까지 기다리세요.' },
  no_turn_running: { en: 'No reply is being written in this chat.', ko: '이 대화에서 쓰고 있는 답이 없습니다.' },
  message_streaming: { en: 'This reply is still being written. Stop it before editing.', ko: '이 답은 아직 쓰는 중입니다. 고치기 전에 멈추세요.' },
  reply_deleted: { en: 'This reply was deleted while it was being written.', ko: '쓰는 중에 이 답이 삭제되었습니다.' },
  nothing_to_regenerate: { en: 'This chat has no message to answer yet.', ko: '이 대화에는 아직 답할 메시지가 없습니다.' },
  not_a_user_message: { en: 'Only your own messages can be edited and resent.', ko: '내가 보낸 메시지만 고쳐서 다시 보낼 수 있습니다.' },
  reply_too_long: { en: 'The reply reached the 1000000-character limit of a message and was cut there.', ko: '답이 메시지 한도인 1000000자에 닿아 거기서 잘렸습니다.' },
  too_many_tool_rounds: { en: 'The model kept asking for tools after 5 rounds, so Maru stopped it here.', ko: '모델이 도구 호출을 5번 넘게 이어 가서 마루가 여기서 멈췄습니다.' },
  interrupted: { en: 'Maru closed before this reply finished; the text so far is kept.', ko: '답이 끝나기 전에 마루가 종료되었습니다. 그때까지의 내용은 남아 있습니다.' },
  interrupted_before_start: { en: 'Maru closed before this reply began; retry to get an answer.', ko: '답을 시작하기 전에 마루가 종료되었습니다. 다시 시도하면 답을 받을 수 있습니다.' },
  images_unsupported: { en: 'This model does not take images.', ko: '이 모델은 이미지를 받지 않습니다. 설정에서 비전 모델을 고르거나 이미지 없이 보내세요.', detail: true,
    named: '{model} 모델은 이미지를 받지 않습니다. 설정에서 비전 모델을 고르거나 이미지 없이 보내세요.' },
  // Files.
  file_too_large: { en: 'The file is too large.', ko: '파일이 너무 큽니다. 설정의 최대 크기를 확인하세요.', named: '{file}: 파일이 너무 큽니다. {max_mb}MB까지 첨부할 수 있습니다.' },
  file_missing: { en: 'A file of this chat is missing from Maru’s data folder. Attach it again.',
    ko: '이 대화의 파일이 마루 데이터 폴더에서 사라졌습니다. 다시 첨부하세요.', detail: true,
    named: '{file} 파일이 마루 데이터 폴더에서 사라졌습니다. 다시 첨부하세요.' },
  empty_file: { en: 'The file is empty.', ko: '파일이 비어 있습니다.', detail: true, named: '{file} 파일이 비어 있습니다(0바이트).' },
  binary_file: { en: 'Maru cannot read this kind of file.', ko: '마루가 읽을 수 없는 종류의 파일입니다. 텍스트, PDF, 이미지 파일을 첨부하세요.', detail: true,
    named: '{file}: 마루가 읽을 수 없는 종류의 파일입니다. 텍스트, PDF, 이미지 파일을 첨부하세요.' },
  type_mismatch: { en: 'The file’s name does not match its content.', ko: '파일 확장자와 실제 내용이 맞지 않습니다. 내용에 맞게 이름을 바꾸세요.', detail: true,
    named: '{file}: 확장자(.{ext})와 실제 내용이 맞지 않습니다. 내용에 맞게 이름을 바꾸세요.' },
  not_an_image: { en: 'This file is not an image.', ko: '이 파일은 이미지가 아닙니다.', detail: true, named: '{file}: 이미지가 아닙니다. 모델은 다른 파일을 검색으로 읽습니다.' },
  image_not_here: { en: 'This image is not attached to this chat.', ko: '이 이미지는 이 대화에 첨부되어 있지 않습니다.', detail: true,
    named: '{file}: 이 대화나 프로젝트에 첨부된 이미지가 아닙니다.' },
  scope_full: { en: 'No more files can be attached here.', ko: '여기에는 파일을 더 첨부할 수 없습니다. 쓰지 않는 파일을 지우세요.' },
  invalid_upload: { en: 'The upload could not be read.', ko: '올린 파일을 읽을 수 없습니다. 다시 올리세요.', detail: true },
  invalid_sharing: { en: 'These sharing settings cannot be saved.', ko: '이 공유 설정은 저장할 수 없습니다.', detail: true },
  invalid_scope: { en: 'A file must be attached to a chat or a project.', ko: '파일은 대화나 프로젝트에 첨부해야 합니다.' },
  // Settings.
  invalid_endpoint: { en: 'The model server address is not valid.', ko: '모델 서버 주소가 올바르지 않습니다. http:// 또는 https://로 시작하는 주소를 입력하세요.', detail: true,
    named: '모델 서버 주소가 올바르지 않습니다({url}). http:// 또는 https://로 시작하는 주소를 입력하세요.' },
  credentials_in_url: { en: 'The server address holds a user name or password. Put the key in the API key field, and the address without it.', ko: '서버 주소에 사용자 이름이나 비밀번호가 들어 있습니다. 키는 API 키 칸에 넣고, 주소는 그것을 빼고 적으세요.' },
  invalid_temperature: { en: 'Temperature must be between 0 and 2.', ko: '온도는 0에서 2 사이여야 합니다.' },
  invalid_top_p: { en: 'top_p must be above 0 and at most 1.', ko: 'top_p는 0보다 크고 1 이하여야 합니다.' },
  invalid_max_tokens: { en: 'Max tokens must be at least 1.', ko: '최대 토큰 수는 1 이상이어야 합니다. 비워 두면 서버 기본값을 씁니다.' },
  invalid_context_length: { en: 'The context length must be at least 256 tokens.', ko: '컨텍스트 길이는 256 토큰 이상이어야 합니다.' },
  invalid_timeout: { en: 'Timeouts must be between 5 and 3600 seconds.', ko: '대기 시간은 5초에서 3600초 사이여야 합니다.' },
  invalid_attachment_limit: { en: 'The file size limit must be between 1 and 1024 MB.', ko: '파일 최대 크기는 1 MB에서 1024 MB 사이여야 합니다.' },
  invalid_text_limit: { en: 'The text indexed per file must be between 10,000 and 100,000,000 characters.', ko: '파일당 색인할 텍스트는 10,000자에서 100,000,000자 사이여야 합니다.',
    named: '파일당 색인할 텍스트는 {min}자에서 {max}자 사이여야 합니다.' },
  invalid_tool_output_limit: { en: 'The size up to which a tool result is sent whole must be between 200 and 1,000,000 tokens.',
    ko: '도구 결과를 통째로 보내는 크기는 200에서 1,000,000 토큰 사이여야 합니다.',
    named: '도구 결과를 통째로 보내는 크기는 {min}에서 {max} 토큰 사이여야 합니다.' },
  invalid_tool_schema_budget: { en: 'The tools’ budget must be between 1,000 and 1,000,000 tokens.',
    ko: '도구 설명에 쓰는 한도는 1,000에서 1,000,000 토큰 사이여야 합니다.',
    named: '도구 설명에 쓰는 한도는 {min}에서 {max} 토큰 사이여야 합니다.' },
  invalid_skill: { en: 'This skill cannot be saved as it is.', ko: '이 스킬은 지금 상태로 저장할 수 없습니다.', detail: true },
  unknown_skill: { en: 'This chat has no skill of that name: it may have been turned off or deleted.', ko: '이 대화에는 그런 이름의 스킬이 없습니다. 꺼졌거나 삭제되었을 수 있습니다.', detail: 'names', named: '이 대화에는 “{name}” 스킬이 없습니다. 꺼졌거나 삭제되었을 수 있습니다.' },
  invalid_tool_server: { en: 'This tool server cannot be saved as it is.', ko: '이 도구 서버는 지금 상태로 저장할 수 없습니다.', detail: true },
  nothing_to_title: { en: 'This chat has no message yet to name it by.', ko: '이 대화에는 아직 제목을 지을 메시지가 없습니다.' },
  title_unusable: { en: 'The model’s answer was no title. Try again, or rename the chat yourself.', ko: '모델의 답이 제목이 아니었습니다. 다시 시도하거나 직접 이름을 바꾸세요.', detail: true },
  invalid_exclude: { en: 'A line of “Leave out” is not a pattern of paths (or there are too many, or one is too long).', ko: '“제외할 경로”의 한 줄이 경로 패턴이 아닙니다(또는 줄이 너무 많거나 너무 깁니다).',
    detail: true, named: '“{pattern}” 줄은 저장할 수 없습니다. 경로 패턴이 아니거나, 500자보다 길거나, 200줄을 넘었습니다.' },
  invalid_command_line: { en: 'This command line cannot be split: a quote is not closed, or there is nothing to run.', ko: '이 명령줄은 나눌 수 없습니다. 따옴표가 닫히지 않았거나 실행할 것이 없습니다.' },
  mcp_config_not_json: { en: 'This is not JSON. Paste the whole file, from its first { to its last }.', ko: 'JSON이 아닙니다. 파일 전체를 처음 { 부터 마지막 } 까지 붙여 넣으세요.',
    named: 'JSON이 아닙니다({line}번째 줄 {column}번째 글자 근처). 파일 전체를 처음 { 부터 마지막 } 까지 붙여 넣으세요.' },
  mcp_config_no_servers: { en: 'This JSON has no "mcpServers" (nor VS Code’s "servers"): it is not an mcp.json.', ko: '이 JSON에는 "mcpServers"(VS Code의 "servers")가 없습니다. mcp.json이 아닙니다.' },
  mcp_config_too_large: { en: 'This file is too large to be an mcp.json (Maru reads up to 1 MB).', ko: 'mcp.json이라기에는 파일이 너무 큽니다(최대 1MB까지 읽습니다).' },
  mcp_config_too_many: { en: 'This file lists more servers than Maru adds at once (100).', ko: '이 파일에는 한 번에 추가할 수 있는 것보다 많은 서버가 있습니다(최대 100개).',
    named: '이 파일에는 서버가 {count}개 있습니다. 한 번에 {max}개까지 추가할 수 있습니다.' },
  mcp_config_nothing_chosen: { en: 'Choose at least one server to add.', ko: '추가할 서버를 하나 이상 고르세요.' },
  mcp_server_not_in_file: { en: 'That server is not in the file.', ko: '그 서버는 파일에 없습니다.', named: '파일에 “{name}” 서버가 없습니다.' },
  mcp_server_unusable: { en: 'One of the chosen servers cannot be added, so none was added.', ko: '고른 서버 중 하나를 추가할 수 없어서 아무것도 추가하지 않았습니다.',
    named: '“{name}” 서버를 추가할 수 없어서 아무것도 추가하지 않았습니다.' },
  tool_server_failed: { en: 'The tool server does not start.', ko: '도구 서버가 시작되지 않습니다.', detail: true },
  tool_server_off: { en: 'This tool server is turned off.', ko: '이 도구 서버는 꺼져 있습니다.', named: '도구 서버 {name}은(는) 꺼져 있습니다.' },
  not_pending: { en: 'This tool call is no longer waiting for an answer.', ko: '이 도구 호출은 더 이상 답을 기다리지 않습니다.' },
  invalid_budget: { en: 'This budget is out of range.', ko: '예산 값이 허용 범위를 벗어났습니다.' },
  // Requests.
  invalid_json: { en: 'The request is not valid JSON.', ko: '요청이 올바른 JSON이 아닙니다.', detail: true },
  invalid_request: { en: 'The server could not accept this request.', ko: '서버가 이 요청을 받아들이지 못했습니다.', detail: true },
  invalid_query: { en: 'The request’s query is not valid.', ko: '요청의 쿼리가 올바르지 않습니다.', detail: true },
  invalid_id: { en: 'Ids are whole numbers.', ko: 'ID는 정수여야 합니다.' },
  invalid_cursor: { en: 'This list position is not valid. Reload the list.', ko: '목록 위치가 올바르지 않습니다. 목록을 다시 불러오세요.' },
  body_too_large: { en: 'The request is too large. Attach long text as a file.', ko: '요청이 너무 큽니다. 긴 글은 파일로 첨부하세요.' },
  url_too_long: { en: 'The URL is too long.', ko: '주소(URL)가 너무 깁니다.' },
  headers_too_long: { en: 'The request headers are too long.', ko: '요청 헤더가 너무 깁니다.' },
  bad_host: { en: 'This server only answers requests addressed to 127.0.0.1 or localhost.', ko: '이 서버는 127.0.0.1 또는 localhost로 온 요청에만 답합니다.' },
  bad_origin: { en: 'This server only answers pages it served itself: another site cannot reach it.', ko: '이 서버는 자신이 연 페이지의 요청에만 답합니다. 다른 사이트는 접근할 수 없습니다.' },
  not_found: { en: 'It no longer exists.', ko: '찾을 수 없습니다. 이미 삭제되었을 수 있습니다.' },
  unauthorized: { en: 'Missing or wrong access token.', ko: '접근 토큰이 없거나 틀립니다. 마루를 다시 여세요.' },
  method_not_allowed: { en: 'The server does not accept this request.', ko: '서버가 이 요청 방식을 받지 않습니다.', detail: true },
  no_such_route: { en: 'The server has no such API.', ko: '서버에 그런 API가 없습니다. 마루 버전이 맞는지 확인하세요.', detail: true },
  internal: { en: 'Something went wrong inside Maru. The log file in the data folder has the details.', ko: '마루 내부에서 문제가 생겼습니다. 데이터 폴더의 로그 파일에 자세한 내용이 있습니다.' },
  newer_schema: { en: 'The data was written by a newer version of Maru. Update Maru.', ko: '데이터가 더 새 버전의 마루로 저장되었습니다. 마루를 업데이트하세요.' },
  bad_method: { en: 'This is not an HTTP method.', ko: 'HTTP 요청 방식이 아닙니다.', detail: true },
  bad_request: { en: 'The request cannot be built.', ko: '요청을 만들 수 없습니다.', detail: true },
  // Starting Maru.
  data_dir_unusable: { en: 'The data folder cannot be used.', ko: '데이터 폴더를 쓸 수 없습니다. 폴더 권한과 남은 공간을 확인하세요.', detail: true },
  data_dir_in_use: { en: 'The data folder is in use by another Maru.', ko: '다른 마루가 데이터 폴더를 쓰고 있습니다. 그쪽을 먼저 닫으세요.', detail: true },
  bad_template: { en: 'A prompt template cannot be read.', ko: '프롬프트 템플릿을 읽을 수 없습니다.', detail: true },
  bind_failed: { en: 'Maru cannot listen on this address.', ko: '마루가 이 주소에서 요청을 받을 수 없습니다. 다른 포트를 쓰세요.', detail: true },
  invalid_host: { en: 'The host must be an IP address, like 127.0.0.1.', ko: '호스트는 127.0.0.1 같은 IP 주소여야 합니다.', detail: true },
  remote_refused: { en: 'Maru refuses to listen where other machines could reach your chats.', ko: '다른 컴퓨터가 대화에 접근할 수 있는 주소에서는 열지 않습니다.', detail: true },
  // Exports, backups and imports.
  // The same codes refuse a chat (JSON) and a project (zip), so the words fit both.
  unsupported_import: { en: 'This is neither ChatGPT’s or Claude’s data export nor a chat or project exported by Maru.', ko: 'ChatGPT나 Claude의 데이터 내보내기도, 마루가 내보낸 대화(JSON)나 프로젝트(zip)도 아닙니다.', detail: true },
  unsupported_import_version: { en: 'This was exported by a different version of Maru.', ko: '다른 버전의 마루가 내보낸 파일이라서 가져올 수 없습니다. 마루를 업데이트하세요.', detail: true },
  invalid_import: { en: 'The exported file is incomplete or damaged. Nothing was imported.', ko: '내보낸 파일이 온전하지 않아 아무것도 가져오지 않았습니다. 다시 내려받거나 내보내세요.', detail: true },
  temporary_chat: { en: 'A temporary chat keeps no summaries and no title. Keep the chat first.', ko: '임시 대화는 요약도 제목도 남기지 않습니다. 먼저 대화를 보관하세요.' },
  not_a_backup: { en: 'This file is not a Maru backup.', ko: '마루 백업 파일이 아닙니다.', detail: true },
  unsafe_backup_entry: { en: 'The backup holds a path outside the data folder, so nothing was restored.', ko: '백업에 데이터 폴더 밖을 가리키는 경로가 있어 아무것도 복원하지 않았습니다.', detail: true },
  backup_damaged: { en: 'The database in the backup is damaged.', ko: '백업 안의 데이터베이스가 손상되었습니다.', detail: true },
  backup_too_large: { en: 'A file in the backup is larger than Maru ever writes, so nothing was restored.', ko: '백업 안의 파일이 마루가 쓰는 크기보다 커서 아무것도 복원하지 않았습니다.', detail: true },
  not_enough_space: { en: 'The disk has no room for this backup. Make room, or restore it onto another disk.', ko: '디스크에 이 백업을 풀 공간이 없습니다. 공간을 확보하거나 다른 디스크에 복원하세요.', detail: true },
  restore_running: { en: 'Another restore is under way; Maru restarts on it when it is done.', ko: '다른 복원이 진행 중입니다. 끝나면 마루가 그 데이터로 다시 시작합니다.' },
  data_dir_not_empty: { en: 'A backup is restored only into an empty folder.', ko: '백업은 비어 있는 폴더에만 복원합니다. 새 폴더를 지정하세요.', detail: true },
} satisfies Record<Code, ErrorWords>;

/** The UI's own codes: what went wrong before any answer from Maru. */
const UI = {
  offline: { en: 'Cannot reach Maru. Is it still running?', ko: '마루에 연결할 수 없습니다. 마루가 실행 중인지 확인하세요.' },
  bad_response: { en: 'The server sent an answer the UI cannot read.', ko: '서버가 화면에서 읽을 수 없는 답을 보냈습니다.', detail: true },
};

/** The UI's own codes. */
export type UiCode = keyof typeof UI;

/** Every known code, model-server ones as `model_server.<code>`. */
export const ERRORS: Readonly<Record<string, ErrorWords>> = {
  ...MARU,
  ...UI,
  ...Object.fromEntries(Object.entries(MODEL_SERVER).map(([code, w]) => [`model_server.${code}`, w])),
};
