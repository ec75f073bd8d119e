// Roles as the client reads them: from a token's claims (unverified, only to choose what the
// page shows; the server checks every request) and from the accounts page's form.

/** The roles an administrator grants or revokes, with their label and what each opens; USER is every account's. */
export const GRANTABLE = /** @type {const} */ ([
  ["OPERATOR", "Operator", "the incident platform"],
  ["ADMIN", "Admin", "everything, this page too"],
]);

/**
 * A JWT's claims, unverified; an empty object when they cannot be read.
 * @param {string} token
 * @returns {Record<string, unknown>}
 */
export function claimsOf(token) {
  try {
    const payload = token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
    // The payload is UTF-8: atob gives its bytes, one character each.
    const claims = JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(payload), (c) => c.charCodeAt(0))));
    return claims && typeof claims === "object" && !Array.isArray(claims) ? claims : {};
  } catch {
    return {};
  }
}

/**
 * The roles a token carries (its `roles` claim's strings); none when it carries none.
 * @param {string} token
 * @returns {string[]}
 */
export function tokenRoles(token) {
  const claimed = claimsOf(token).roles;
  return Array.isArray(claimed) ? claimed.filter((r) => typeof r === "string") : [];
}

/**
 * Whether `roles` open the incident platform: OPERATOR, or ADMIN (everything).
 * @param {string[]} roles
 */
export function opensIncidents(roles) {
  return roles.includes("OPERATOR") || roles.includes("ADMIN");
}

/**
 * The roles to send for the ticked ones: USER first (always kept), then each grantable role
 * ticked, in a fixed order; anything else ticked is left out.
 * @param {string[]} ticked
 * @returns {("USER"|"OPERATOR"|"ADMIN")[]}
 */
export function chosenRoles(ticked) {
  return ["USER", ...GRANTABLE.map(([role]) => role).filter((role) => ticked.includes(role))];
}

/**
 * The accounts a page asks for: `?limit=` when it is a whole number (the API answers one out
 * of its range with a 400 that names `limit`), else `fallback`.
 * @param {URLSearchParams} query
 * @param {number} fallback
 */
export function pageSize(query, fallback) {
  const raw = query.get("limit");
  if (raw === null || raw.trim() === "") {
    return fallback;
  }
  const n = Number(raw);
  return Number.isInteger(n) ? n : fallback;
}
