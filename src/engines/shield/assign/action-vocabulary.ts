/**
 * The web-action vocabulary predicates are written in: BrowserGym's action names as ST-WebAgentBench
 * records them (click, fill, select_option, press, goto, send_msg_to_user, answer, ...), with the
 * common spellings other agents log ("type", "navigate", "finish", "send_message") mapped onto them, so
 * that one predicate matches the same behaviour whatever agent produced the step.
 */

/** Canonical name -> spellings that mean the same action. */
const SYNONYMS: Record<string, readonly string[]> = {
  click: ["click", "left_click", "tap", "press_button", "click_element"],
  dblclick: ["dblclick", "double_click"],
  fill: [
    "fill",
    "type",
    "type_text",
    "input",
    "input_text",
    "enter_text",
    "keyboard_type",
    "set_value",
    "write",
  ],
  select_option: ["select_option", "select", "choose", "choose_option", "select_dropdown_option"],
  press: ["press", "key_press", "keyboard_press", "press_key", "hotkey"],
  goto: ["goto", "go_to", "navigate", "navigate_to", "open_url", "visit", "visit_url", "go_to_url"],
  send_msg_to_user: [
    "send_msg_to_user",
    "send_message",
    "send_message_to_user",
    "message_user",
    "ask_user",
    "ask",
    "reply",
    "respond",
    "message",
  ],
  answer: ["answer", "finish", "stop", "done", "final_answer", "report_infeasible"],
  go_back: ["go_back", "back", "navigate_back"],
  go_forward: ["go_forward", "forward", "navigate_forward"],
  scroll: ["scroll", "scroll_down", "scroll_up", "mouse_wheel"],
  hover: ["hover", "mouse_move", "mouse_over"],
  noop: ["noop", "wait", "sleep"],
};

const LOOKUP = new Map<string, string>();
for (const [canonical, spellings] of Object.entries(SYNONYMS)) {
  for (const s of spellings) LOOKUP.set(s, canonical);
}

/** Actions that put data into the page (ST-WebAgentBench's input actions). */
export const INPUT_ACTION_TYPES: readonly string[] = ["fill", "select_option", "press"];

/** Actions whose arguments leave the agent towards the user or the network. */
export const OUTPUT_ACTION_TYPES: readonly string[] = ["send_msg_to_user", "goto", "answer"];

/** Keys that move focus or submit a form: pressing them types no data. */
export const NAVIGATION_KEYS: readonly string[] = [
  "enter",
  "tab",
  "escape",
  "esc",
  "arrowup",
  "arrowdown",
  "arrowleft",
  "arrowright",
  "backspace",
  "delete",
  "home",
  "end",
  "pageup",
  "pagedown",
  "shift+tab",
];

/**
 * Canonical action name: lower case, separators as `_`, namespaces (`browser.click`, `mcp:web.click`)
 * stripped, synonyms mapped; a name it does not know is returned in that normalised spelling.
 */
export function normaliseActionType(options: { action: string }): string {
  const raw = options.action.trim();
  const last = raw.split(/[.:/]/).pop() ?? raw;
  const key = last
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .replace(/[\s-]+/g, "_");
  return LOOKUP.get(key) ?? key;
}
