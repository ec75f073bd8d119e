// What every incident page does (incident platform): its heading, the operator check, loading a
// list or an item with its error in place, and forms that send with a busy button and show
// the API's 400 under the fields it names.

import { h, mount } from "./dom.js";
import { sectionNav } from "./incidents.js";
import * as account from "./session.js";
import { busy, clearFormErrors, errorBox, loading, showFormError } from "./ui.js";
import { needsLogin, needsRole } from "./access.js";

/**
 * Titles the page; false when the incident platform is not open to this session (nobody
 * logged in: an invitation to log in; a reader without OPERATOR or ADMIN: what it needs).
 * @param {HTMLElement} main
 * @param {string} heading
 * @param {(title: string) => void} title
 */
export function forOperators(main, heading, title) {
  title(heading);
  if (!account.session.user) {
    needsLogin(main, heading, "The incident pages are for operators: log in with an account that has the OPERATOR role.");
    return false;
  }
  if (!account.isOperator()) {
    needsRole(main, heading, "OPERATOR", "The incident pages are for the operators of the platform.");
    return false;
  }
  return true;
}

/**
 * Sends `form` on submit: `read` makes the request from its data, `save` sends it while the
 * button that sent it is busy; a failure shows on the form (a 400 under the fields it names).
 * @template T
 * @param {HTMLFormElement} form
 * @param {HTMLButtonElement[]} buttons The form's submit buttons; the first unless another sent it.
 * @param {string} busyLabel
 * @param {(data: FormData, button: HTMLButtonElement) => T} read
 * @param {(request: T) => Promise<unknown>} save
 */
export function submits(form, buttons, busyLabel, read, save) {
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearFormErrors(form);
    const submitter = /** @type {SubmitEvent} */ (event).submitter;
    const button = buttons.find((b) => b === submitter) ?? buttons[0];
    if (!button) {
      return;
    }
    const request = read(new FormData(form), button);
    try {
      await busy(button, busyLabel, () => save(request));
    } catch (error) {
      showFormError(form, error);
    }
  });
}

/**
 * A page's heading, and a line under it.
 * @param {import("./dom.js").Children} heading
 * @param {import("./dom.js").Children} [lede]
 */
export function pageHead(heading, lede = null) {
  return h("div", { class: "page-head" }, h("h1", { tabindex: "-1" }, heading), lede ? h("p", { class: "lede" }, lede) : null);
}

/**
 * Fills `slot` with what `load` answers, drawn by `draw`; with the error instead when it fails
 * (unless the page was left meanwhile).
 * @template T
 * @param {HTMLElement} slot
 * @param {AbortSignal} signal
 * @param {() => Promise<T>} load
 * @param {(value: T) => import("./dom.js").Children} draw
 */
export async function fill(slot, signal, load, draw) {
  try {
    const value = await load();
    mount(slot, draw(value));
  } catch (error) {
    if (!signal.aborted) {
      mount(slot, errorBox(error));
    }
  }
}

/**
 * The item an item's page shows (an incident, a rule, an entry): "Loading" meanwhile, and when
 * it cannot be had, the page's heading over the error. Null then (or when the page was left).
 * @template T
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {AbortSignal} signal
 * @param {string} heading What the page shows, e.g. "Alert rule".
 * @param {() => Promise<T>} load
 * @returns {Promise<T|null>}
 */
export async function loadItem(main, match, signal, heading, load) {
  mount(main, sectionNav(match.path), loading(`Loading the ${heading.toLowerCase()}`));
  try {
    return await load();
  } catch (error) {
    if (!signal.aborted) {
      mount(main, pageHead(heading), sectionNav(match.path), errorBox(error));
    }
    return null;
  }
}
