// The community header's bell: a link to the inbox with the unread count, asked once per page.

import * as communityApi from "./api-community.gen.js";
import { h } from "./dom.js";

/**
 * The bell, for a signed-in member; its count fills in when the API answers (a failure
 * leaves the plain link).
 * @param {AbortSignal} [signal]
 */
export function bell(signal) {
  const badge = h("span", { class: "badge", hidden: true });
  const link = h("a", { class: "button secondary bell", href: "/community/notifications", "aria-label": "Notifications" }, "🔔 Notifications ", badge);
  communityApi.listNotifications({ limit: 1 }, { signal, cache: "no-store" }).then(
    (page) => {
      const n = page.unreadCount;
      badge.textContent = n >= 1000 ? "999+" : String(n);
      badge.hidden = n === 0;
      link.setAttribute("aria-label", n ? `Notifications, ${n >= 1000 ? "1,000 or more" : n} unread` : "Notifications, none unread");
    },
    () => {},
  );
  return link;
}
