// A unit of work, like a Core Data context: one object per ID, changes kept in JavaScript
// until `save()` sends them as one atomic `save` (docs/PROTOCOL.md, "save").

import { ModelError, ObjectDeletedError, ProtocolError, ValueConversionError } from "./errors.js";
import { DocObject, STATE, classFor } from "./objects.js";
import { argumentToWire } from "./arguments.js";
import { describe, entityOfID, toWire } from "./values.js";
import { checkAfter, idOf, list, sortKeys } from "./params.js";
import { mergeChange } from "./merge.js";

const GET_BATCH = 1000;

/** A unit of work on the server's object graph. Not for concurrent use by interleaved tasks
 * that change the same objects; sessions may share a client. */
export class Session {
  constructor(client, model, { prefetch = 100 } = {}) {
    if (!Number.isInteger(prefetch) || prefetch < 1) throw new RangeError("prefetch must be a whole number of at least 1");
    this.client = client;
    this.model = model;
    this.prefetch = prefetch;
    this._objects = new Map();
    this._faults = new Map();
    this._inserted = new Set();
    this._updated = new Set();
    this._deleted = new Set();
    this._nextTemporary = 0;
    this._feed = null;
    /** The error that ended the subscription of a session made with `mergeChanges: true`. */
    this.mergeError = null;
  }

  // -- reading ---------------------------------------------------------------------------

  /** The objects of `entity` matching `options.predicate` (NSPredicate format) with
   * `options.arguments`, sorted (`sort`: "title", "-plays", {key, ascending, caseInsensitive}
   * or an array of them), paged (`limit`, `offset`); `after`: a save's `seq` the answer holds. */
  async fetch(entity, options = {}) {
    const result = await this.client.call("fetch", this._fetchParams(entity, options, "objects"));
    return list(result, "objects", "fetch").map((item) => this._register(item));
  }

  /** Like fetch, but only the IDs. */
  async fetchIds(entity, options = {}) {
    const result = await this.client.call("fetch", this._fetchParams(entity, options, "ids"));
    return list(result, "ids", "fetch");
  }

  /** How many objects would fetch return (limit and offset included). */
  async count(entity, options = {}) {
    const result = await this.client.call("fetch", this._fetchParams(entity, options, "count"));
    if (result === null || typeof result !== "object" || typeof result.count !== "number") {
      throw new ProtocolError("the answer to a count has no count");
    }
    return result.count;
  }

  /** Reads objects now: an array of IDs (or objects) gives an array with null for missing ones;
   * one ID gives one object or null. `options.after` as for fetch. */
  async get(ids, { after } = {}) {
    const single = !Array.isArray(ids);
    const wanted = (single ? [ids] : ids).map(idOf);
    if (wanted.length === 0) return [];
    const params = { ids: wanted };
    if (after !== undefined && after !== null) params.after = checkAfter(after);
    const objects = list(await this.client.call("get", params), "objects", "get");
    if (objects.length !== wanted.length) throw new ProtocolError(`get asked for ${wanted.length} objects and the answer holds ${objects.length}`);
    const found = objects.map((item, index) => {
      if (item === null) { this._forget(wanted[index]); return null; }
      return this._register(item);
    });
    return single ? found[0] : found;
  }

  /** The object with this ID, without a round trip: a fault until loaded. */
  object(id) {
    if (id instanceof DocObject && id.session === this) return id;
    return this._objectFor(idOf(id), null);
  }

  /** Loads these objects (faults; every fault of the session when none are named), together
   * with other faults up to `prefetch`, in as few `get`s as it takes. */
  async load(...objects) {
    const targets = objects.length > 0 ? objects.filter((obj) => obj.isFault) : [...this._faults.values()];
    for (const obj of targets) this._checkMine(obj);
    if (targets.length === 0) return;
    const batch = new Set(targets);
    for (const other of this._faults.values()) {
      if (batch.size >= Math.max(this.prefetch, targets.length)) break;
      batch.add(other);
    }
    const all = [...batch];
    for (let start = 0; start < all.length; start += GET_BATCH) await this._loadBatch(all.slice(start, start + GET_BATCH));
  }

  // -- changing --------------------------------------------------------------------------

  /** A new object of `entity` with `values`; the others start at the model's defaults. It
   * gets its permanent ID when the session is saved. */
  insert(entity, values = {}) {
    const description = this.model.entity(entity);
    if (description.abstract) throw new ModelError(`${entity} is abstract: insert one of its sub-entities`);
    const Kind = classFor(description);
    const obj = new Kind(this, description, null, `new-${++this._nextTemporary}`);
    const state = obj[STATE];
    state.values = {};
    for (const property of description.properties.values()) {
      state.values[property.name] = property.kind === "attribute" ? toWire(property.type, property.default) : property.toMany ? [] : null;
    }
    state.loaded = true;
    state.version = null;
    this._inserted.add(obj);
    for (const [key, value] of Object.entries(values)) obj.set(key, value);
    return obj;
  }

  /** Marks `obj` for deletion when the session is saved; the server applies the delete rules. */
  delete(obj) {
    this._checkMine(obj);
    const state = obj[STATE];
    if (state.gone || state.deleted) throw new ObjectDeletedError(`${obj._describe()} is already deleted`);
    if (this._inserted.delete(obj)) { state.gone = true; return; }
    state.deleted = true;
    this._updated.delete(obj);
    this._deleted.add(obj);
  }

  /** Whether save() has anything to send. */
  get hasChanges() {
    return this._inserted.size > 0 || this._deleted.size > 0 || [...this._updated].some((obj) => obj[STATE].changes.size > 0);
  }
  /** Objects inserted and not saved yet. */
  get inserted() { return [...this._inserted]; }
  /** Objects with unsaved changes (not inserted ones). */
  get updated() { return [...this._updated].filter((obj) => obj[STATE].changes.size > 0); }
  /** Objects marked for deletion. */
  get deleted() { return [...this._deleted]; }

  /** Sends every change as one atomic `save`: all applied and durable, or none. Resolves with
   * the server's result (`ids`, `versions`, `deleted`, `updated`, `seq`). On an error nothing
   * was saved and the session keeps its changes. */
  async save() {
    if (!this.hasChanges) return { ids: {}, versions: {}, deleted: [], updated: [], seq: this.client.seq };
    const unread = [...this._updated, ...this._deleted].filter((obj) => obj[STATE].version === null);
    for (let start = 0; start < unread.length; start += GET_BATCH) await this._loadBatch(unread.slice(start, start + GET_BATCH));
    const inserts = [...this._inserted].map((obj) => ({ id: obj[STATE].temporaryID, entity: obj.entity, values: this._wireChanges(obj) }));
    const updates = [...this._updated].filter((obj) => obj[STATE].changes.size > 0 && !obj[STATE].gone)
      .map((obj) => ({ id: obj.id, version: obj[STATE].version, values: this._wireChanges(obj) }));
    const deletes = [...this._deleted].filter((obj) => !obj[STATE].gone).map((obj) => ({ id: obj.id, version: obj[STATE].version }));
    const params = {};
    if (inserts.length > 0) params.insert = inserts;
    if (updates.length > 0) params.update = updates;
    if (deletes.length > 0) params.delete = deletes;
    const result = await this.client.call("save", params);
    if (result === null || typeof result !== "object") throw new ProtocolError("the answer to save is not an object");
    this._applySave(result);
    this.client._sawSeq(result.seq);
    return result;
  }

  /** Forgets every unsaved change. */
  rollback() {
    for (const obj of this._inserted) obj[STATE].gone = true;
    for (const obj of [...this._updated, ...this._deleted]) { obj[STATE].changes.clear(); obj[STATE].deleted = false; }
    this._inserted.clear();
    this._updated.clear();
    this._deleted.clear();
  }

  /** Forgets the unsaved changes of these objects (every object when none are named) and
   * reads them again now. */
  async refresh(...objects) {
    const targets = [];
    for (const item of objects.length > 0 ? objects : [...this._objects.values()]) {
      const obj = item instanceof DocObject ? item : this.object(item);
      this._checkMine(obj);
      if (obj.isInserted) continue;
      const state = obj[STATE];
      state.changes.clear();
      state.deleted = false;
      state.loaded = false;
      this._updated.delete(obj);
      this._deleted.delete(obj);
      targets.push(obj);
    }
    for (let start = 0; start < targets.length; start += GET_BATCH) await this._loadBatch(targets.slice(start, start + GET_BATCH));
  }

  // -- other clients' changes ------------------------------------------------------------

  /** Makes the objects this session holds show what a commit (a Change of a subscription)
   * left in the store. An object without unsaved changes takes the committed values and
   * version (without values it becomes a fault); one with unsaved changes keeps them on top of
   * the committed values and counts as read at the new version (its next save does not
   * conflict: the local change wins), unless the change has no values (then it keeps the
   * version it read). A change not newer than what the session holds is ignored; a deleted
   * object leaves the session; objects the session does not hold are not added. */
  merge(change) {
    mergeChange(this, change);
  }

  /** Ends the subscription of a session made with `mergeChanges: true`. */
  close() {
    this._feed?.close();
    this._feed = null;
  }

  // -- for objects -----------------------------------------------------------------------

  _objectFor(rawID, destination) {
    if (typeof rawID !== "string") throw new ProtocolError(`expected an object ID, got ${describe(rawID)}`);
    const existing = this._objects.get(rawID);
    if (existing !== undefined) return existing;
    let name = entityOfID(rawID);
    if (name === null || !this.model.entities.has(name)) {
      if (destination === null) {
        throw new ModelError(`${JSON.stringify(rawID)} is not an object ID of this model (entities: ${[...this.model.entities.keys()].sort().join(", ")})`);
      }
      name = destination;
    }
    const description = this.model.entity(name);
    const Kind = classFor(description);
    const obj = new Kind(this, description, rawID);
    this._objects.set(rawID, obj);
    this._faults.set(rawID, obj);
    return obj;
  }

  async _load(obj) {
    this._checkMine(obj);
    if (obj.isFault) await this.load(obj);
    if (obj[STATE].gone) throw new ObjectDeletedError(`${obj._describe()} does not exist (deleted, or never saved)`);
  }

  async _loadBatch(batch) {
    if (batch.length === 0) return;
    const ids = batch.map((obj) => obj.id);
    const objects = list(await this.client.call("get", { ids }), "objects", "get");
    if (objects.length !== ids.length) throw new ProtocolError(`get asked for ${ids.length} objects and the answer holds ${objects.length}`);
    objects.forEach((item, index) => { if (item === null) this._forget(ids[index]); else this._register(item); });
  }

  _didChange(obj) {
    if (obj.id !== null) this._updated.add(obj);
  }

  _checkMine(obj) {
    if (!(obj instanceof DocObject)) throw new ValueConversionError(`expected an object of this session, got ${describe(obj)}`);
    if (obj.session !== this) throw new ValueConversionError(`${obj._describe()} belongs to another session; use session.object(obj) to get this session's`);
  }

  _checkRelated(owner, relationship, value) {
    this._checkMine(value);
    if (!this.model.isKindOf(value.entity, relationship.destination)) {
      throw new ValueConversionError(`${owner.entity}.${relationship.name} holds ${relationship.destination} objects, not ${value.entity}`);
    }
    if (value[STATE].gone) throw new ObjectDeletedError(`${value._describe()} is deleted and cannot be related to`);
  }

  // -- internals -------------------------------------------------------------------------

  _fetchParams(entity, options, resultType) {
    this.model.entity(entity);
    const { predicate = null, arguments: args = [], sort = null, limit = null, offset = null, includeSubentities = true, after = null, ...unknown } = options;
    const extra = Object.keys(unknown);
    if (extra.length > 0) throw new ValueConversionError(`unknown fetch option ${extra.join(", ")} (options: predicate, arguments, sort, limit, offset, includeSubentities, after)`);
    const params = { entity };
    if (predicate !== null) params.predicate = predicate;
    if (args.length > 0) {
      if (predicate === null) throw new ValueConversionError("arguments were given without a predicate");
      params.arguments = args.map(argumentToWire);
    }
    const keys = sortKeys(sort);
    if (keys.length > 0 && resultType !== "count") params.sort = keys;
    if (limit !== null) params.limit = limit;
    if (offset !== null) params.offset = offset;
    if (!includeSubentities) params.includeSubentities = false;
    if (after !== null) params.after = checkAfter(after);
    if (resultType !== "objects") params.resultType = resultType;
    return params;
  }

  _register(item) {
    if (item === null || typeof item !== "object" || typeof item.id !== "string" || item.values === null || typeof item.values !== "object") {
      throw new ProtocolError("expected an object with id and values from the server");
    }
    const obj = this._objectFor(item.id, typeof item.entity === "string" ? item.entity : null);
    const state = obj[STATE];
    if (state.changes.size > 0 || state.deleted) {
      if (state.version === null) state.version = item.version ?? null; // the version the changes are based on
      return obj;
    }
    state.values = item.values;
    state.version = item.version ?? null;
    state.loaded = true;
    state.gone = false;
    this._faults.delete(item.id);
    return obj;
  }

  _forget(rawID) {
    const obj = this._objects.get(rawID);
    this._objects.delete(rawID);
    this._faults.delete(rawID);
    if (obj === undefined) return;
    const state = obj[STATE];
    state.gone = true;
    state.loaded = true;
    state.changes.clear();
    this._updated.delete(obj);
    this._deleted.delete(obj);
  }

  _wireChanges(obj) {
    const state = obj[STATE];
    const values = {};
    for (const [key, value] of state.changes) {
      const property = state.entity.property(key);
      if (property.kind === "attribute") values[key] = value;
      else if (property.toMany) values[key] = value.map((item) => this._reference(item));
      else values[key] = value === null ? null : this._reference(value);
    }
    return values;
  }

  _reference(obj) {
    if (obj.id !== null) return obj.id;
    if (this._inserted.has(obj)) return obj[STATE].temporaryID;
    throw new ValueConversionError(`${obj._describe()} was inserted and then deleted or rolled back; it cannot be related to`);
  }

  _applySave(result) {
    const ids = result.ids ?? {};
    const versions = result.versions ?? {};
    const sent = [...this._inserted, ...this._updated];
    // Relationship changes and deletions make the server change more than was sent (inverses,
    // delete rules): then every saved object is read again on its next load. Otherwise the
    // saved values are the ones sent, and the objects stay loaded.
    let related = this._deleted.size > 0;
    for (const obj of sent) {
      for (const key of obj[STATE].changes.keys()) if (obj[STATE].entity.property(key).kind === "relationship") related = true;
    }
    for (const obj of this._inserted) {
      const permanent = ids[obj[STATE].temporaryID];
      if (typeof permanent !== "string") throw new ProtocolError(`the save's answer has no ID for inserted ${obj[STATE].temporaryID}`);
      obj[STATE].id = permanent;
      this._objects.set(permanent, obj);
    }
    for (const rawID of result.deleted ?? []) this._forget(rawID);
    for (const obj of sent) {
      const state = obj[STATE];
      if (state.gone) continue;
      if (!related && state.loaded) {
        for (const [key, value] of state.changes) state.values[key] = value;
      } else {
        this._makeFault(obj);
      }
      state.changes.clear();
      if (typeof versions[state.id] === "number") state.version = versions[state.id];
    }
    for (const [rawID, version] of Object.entries(versions)) {
      const obj = this._objects.get(rawID);
      if (obj === undefined || obj[STATE].gone) continue;
      if (obj[STATE].version !== version) this._makeFault(obj);
      obj[STATE].version = version;
    }
    for (const rawID of result.updated ?? []) {
      const obj = this._objects.get(rawID);
      if (obj !== undefined && !obj[STATE].gone) this._makeFault(obj);
    }
    this._inserted.clear();
    this._updated.clear();
    this._deleted.clear();
  }

  _makeFault(obj) {
    const state = obj[STATE];
    state.loaded = false;
    state.values = null;
    this._faults.set(state.id, obj);
  }
}
