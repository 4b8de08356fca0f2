// Other clients' commits merged into a session (session.merge): the rules of a Core Data
// context merging another context's save, as the Python client applies them.

import { STATE } from "./objects.js";

/** Makes the objects `session` holds show what `change` (a commit) left in the store. */
export function mergeChange(session, change) {
  for (const id of change.deleted ?? []) if (session._objects.has(id)) session._forget(id);
  for (const item of [...(change.inserted ?? []), ...(change.updated ?? [])]) {
    const obj = session._objects.get(item.id);
    if (obj === undefined) continue;
    const state = obj[STATE];
    if (state.gone || typeof item.version !== "number") continue;
    if (state.version !== null && item.version <= state.version) continue;
    const local = state.changes.size > 0 || state.deleted;
    if (item.values !== null && item.values !== undefined) {
      state.values = item.values;
      state.loaded = true;
      state.version = item.version;
      session._faults.delete(item.id);
    } else if (!local) {
      state.version = item.version;
      session._makeFault(obj);
    }
  }
}
