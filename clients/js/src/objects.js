// Objects of a session: values read by key (`obj.get("title")`) or as properties
// (`obj.title`), changed in JavaScript and sent by `session.save()`. A related object not
// read yet is a fault: `await obj.load()` (or `await owner.related(key)`) reads it, with other
// faults of the session in the same round trip.

import { FaultError, ModelError, ObjectDeletedError, ValueConversionError } from "./errors.js";
import { describe, fromWire, toWire } from "./values.js";

/** The key of an object's state, kept off its public names. */
export const STATE = Symbol("docstore.state");

/** An object of a session (a row of an entity). */
export class DocObject {
  constructor(session, entity, id, temporaryID = null) {
    this[STATE] = {
      session, entity, id, temporaryID,
      version: null, values: null, loaded: false,
      changes: new Map(), deleted: false, gone: false,
    };
  }

  /** The permanent ID (`graph://…`), or null for an object inserted and not saved yet. */
  get id() { return this[STATE].id; }
  /** The entity's name. */
  get entity() { return this[STATE].entity.name; }
  /** The entity's description from the model. */
  get entityDescription() { return this[STATE].entity; }
  /** The session this object belongs to. */
  get session() { return this[STATE].session; }
  /** The version read from the server (null when not known yet). */
  get version() { return this[STATE].version; }
  /** Whether its values are not loaded: `await obj.load()` reads them. */
  get isFault() { const s = this[STATE]; return !s.loaded && !s.gone; }
  /** Whether it was inserted and not saved yet. */
  get isInserted() { return this[STATE].id === null && !this[STATE].gone; }
  /** Whether it is marked for deletion, or was deleted. */
  get isDeleted() { return this[STATE].deleted || this[STATE].gone; }
  /** Whether it has unsaved changes. */
  get hasChanges() { return this[STATE].changes.size > 0 || this[STATE].deleted || this.isInserted; }
  /** The keys changed and not saved yet. */
  get changedKeys() { return [...this[STATE].changes.keys()]; }

  /** The value of a property: an attribute's value, the related object (to-one, maybe a
   * fault) or an array of them (to-many). Throws FaultError when the object is not loaded. */
  get(key) {
    const state = this[STATE];
    const property = state.entity.property(key);
    if (state.gone) throw new ObjectDeletedError(`${this._describe()} does not exist (deleted, or never saved)`);
    if (state.changes.has(key)) {
      const changed = state.changes.get(key);
      if (property.kind === "attribute") return fromWire(property.type, changed);
      return property.toMany ? [...changed] : changed;
    }
    if (!state.loaded) {
      throw new FaultError(`${this._describe()} is a fault, its values are not loaded: await obj.load() (or await owner.related(key)) before reading ${key}`);
    }
    const wire = state.values[key] ?? null;
    if (property.kind === "attribute") return fromWire(property.type, wire);
    if (property.toMany) return (Array.isArray(wire) ? wire : []).map((id) => state.session._objectFor(id, property.destination));
    return wire === null ? null : state.session._objectFor(wire, property.destination);
  }

  /** Sets a property: an attribute's value, a related object of this session (or null), or an
   * array of them for a to-many (it replaces the whole list). Checked now, sent by `save()`. */
  set(key, value) {
    const state = this[STATE];
    const property = state.entity.property(key);
    if (state.gone || state.deleted) throw new ObjectDeletedError(`${this._describe()} is deleted and cannot be changed`);
    let stored;
    if (property.kind === "attribute") {
      stored = toWire(property.type, value, `${this.entity}.${key}`);
    } else if (property.toMany) {
      if (!Array.isArray(value)) throw new ValueConversionError(`${this.entity}.${key} is a to-many relationship: set an array of objects, not ${describe(value)}`);
      stored = [];
      for (const item of value) {
        state.session._checkRelated(this, property, item);
        if (!stored.includes(item)) stored.push(item);
      }
    } else {
      if (value !== null && value !== undefined) state.session._checkRelated(this, property, value);
      stored = value ?? null;
    }
    state.changes.set(key, stored);
    state.session._didChange(this);
  }

  /** Adds `item` to the to-many relationship `key` (no-op when it holds it already). */
  add(key, item) {
    const list = this._toMany(key);
    if (!list.includes(item)) this.set(key, [...list, item]);
  }

  /** Removes `item` from the to-many relationship `key`. */
  remove(key, item) {
    const list = this._toMany(key);
    if (list.includes(item)) this.set(key, list.filter((other) => other !== item));
  }

  /** Reads the object's values (with other faults of its session, up to its `prefetch`);
   * resolves with the object. ObjectDeletedError when it does not exist. */
  async load() {
    await this[STATE].session._load(this);
    return this;
  }

  /** The related object(s) of `key`, loaded: faults among them are read in one round trip. */
  async related(key) {
    const property = this[STATE].entity.property(key);
    if (property.kind !== "relationship") throw new ModelError(`${this.entity}.${key} is an attribute, not a relationship`);
    if (this.isFault) await this.load();
    const value = this.get(key);
    const objects = property.toMany ? value : value === null ? [] : [value];
    const faults = objects.filter((item) => item.isFault);
    if (faults.length > 0) await this[STATE].session.load(...faults);
    return value;
  }

  /** The values by key (attributes as JavaScript values, relationships as IDs), with id, entity and version. */
  toJSON() {
    const state = this[STATE];
    const values = {};
    if (state.loaded || state.id === null) {
      for (const property of state.entity.properties.values()) {
        const value = this.get(property.name);
        if (property.kind === "attribute") values[property.name] = value;
        else if (property.toMany) values[property.name] = value.map((item) => item.id);
        else values[property.name] = value === null ? null : value.id;
      }
    }
    return { id: state.id, entity: this.entity, version: state.version, values };
  }

  _toMany(key) {
    const property = this[STATE].entity.property(key);
    if (property.kind !== "relationship" || !property.toMany) throw new ModelError(`${this.entity}.${key} is not a to-many relationship`);
    return this.get(key);
  }

  _describe() {
    const state = this[STATE];
    return `${state.entity.name} ${state.id ?? `(inserted, ${state.temporaryID})`}`;
  }
}

const RESERVED = new Set([...Object.getOwnPropertyNames(DocObject.prototype), "then", "toString", "valueOf"]);
const CLASSES = new WeakMap();

/** The class of an entity's objects: a DocObject with a getter and setter per property whose
 * name is not one of DocObject's own (those are reached with get/set only). */
export function classFor(entity) {
  let Kind = CLASSES.get(entity);
  if (Kind !== undefined) return Kind;
  Kind = class extends DocObject {};
  Object.defineProperty(Kind, "name", { value: entity.name });
  for (const key of entity.properties.keys()) {
    if (RESERVED.has(key) || key.startsWith("_")) continue;
    Object.defineProperty(Kind.prototype, key, {
      get() { return this.get(key); },
      set(value) { this.set(key, value); },
      enumerable: true,
      configurable: false,
    });
  }
  CLASSES.set(entity, Kind);
  return Kind;
}
