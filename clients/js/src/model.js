// The server's model as the `model` method sends it (docs/MODEL.md): entities with their
// properties, inherited ones first.

import { ModelError, ProtocolError } from "./errors.js";
import { fromWire } from "./values.js";

/** The server's model. `entities` maps names to Entity; `raw` is the model file as sent. */
export class Model {
  constructor(raw) {
    this.raw = raw;
    /** @type {Map<string, Entity>} */
    this.entities = readEntities(raw);
  }

  /** The entity named `name`; ModelError names the entities there are. */
  entity(name) {
    const found = this.entities.get(name);
    if (found === undefined) {
      throw new ModelError(`the model has no entity ${JSON.stringify(name)} (its entities: ${[...this.entities.keys()].sort().join(", ") || "none"})`);
    }
    return found;
  }

  /** Whether `entity` is `ancestor` or one of its sub-entities. */
  isKindOf(entity, ancestor) {
    for (let current = this.entities.get(entity); current !== undefined; current = current.parent === null ? undefined : this.entities.get(current.parent)) {
      if (current.name === ancestor) return true;
    }
    return false;
  }
}

/** An entity: `name`, `parent` (or null), `abstract`, and `properties` by name (inherited first, stored ones only). */
export class Entity {
  constructor(name, parent, abstract, properties) {
    this.name = name;
    this.parent = parent;
    this.abstract = abstract;
    /** @type {Map<string, Attribute | Relationship>} */
    this.properties = properties;
  }

  get attributes() { return [...this.properties.values()].filter((p) => p.kind === "attribute"); }
  get relationships() { return [...this.properties.values()].filter((p) => p.kind === "relationship"); }

  /** The property named `key`; ModelError names the keys there are. */
  property(key) {
    const found = this.properties.get(key);
    if (found === undefined) {
      throw new ModelError(`${this.name} has no property ${JSON.stringify(key)} (its properties: ${[...this.properties.keys()].join(", ") || "none"})`);
    }
    return found;
  }
}

/** An attribute: `name`, `type`, `optional`, `default` (a JavaScript value or null). */
export class Attribute {
  constructor(name, type, optional, defaultValue) {
    this.kind = "attribute";
    this.name = name;
    this.type = type;
    this.optional = optional;
    this.default = defaultValue;
  }
}

/** A relationship: `name`, `destination`, `inverse` (or null), `toMany`, `ordered`, `deleteRule`, `optional`, `minCount`, `maxCount`. */
export class Relationship {
  constructor(item) {
    this.kind = "relationship";
    this.name = item.name;
    this.destination = item.destination;
    this.inverse = typeof item.inverse === "string" ? item.inverse : null;
    this.toMany = item.toMany === true;
    this.ordered = item.ordered === true;
    this.deleteRule = typeof item.deleteRule === "string" ? item.deleteRule : "nullify";
    this.optional = item.optional !== false;
    this.minCount = typeof item.minCount === "number" ? item.minCount : null;
    this.maxCount = typeof item.maxCount === "number" ? item.maxCount : null;
  }
}

function readEntities(raw) {
  if (raw === null || typeof raw !== "object" || !Array.isArray(raw.entities)) {
    throw new ProtocolError("the server's model has no 'entities' array");
  }
  const declared = new Map();
  for (const item of raw.entities) {
    if (item === null || typeof item !== "object" || typeof item.name !== "string") {
      throw new ProtocolError("the server's model holds an entity without a name");
    }
    declared.set(item.name, item);
  }
  const entities = new Map();
  const build = (name, seen) => {
    const done = entities.get(name);
    if (done !== undefined) return done;
    if (seen.includes(name)) throw new ProtocolError(`the server's model has a cycle of parents: ${[...seen, name].join(" -> ")}`);
    const item = declared.get(name);
    if (item === undefined) throw new ProtocolError(`the server's model names a parent entity ${JSON.stringify(name)} it does not define`);
    const properties = new Map();
    const parent = typeof item.parent === "string" ? item.parent : null;
    if (parent !== null) for (const [key, value] of build(parent, [...seen, name]).properties) properties.set(key, value);
    for (const attribute of item.attributes ?? []) {
      if (attribute.transient === true) continue; // never stored or sent
      properties.set(attribute.name, new Attribute(attribute.name, attribute.type, attribute.optional === true, fromWire(attribute.type, attribute.default ?? null)));
    }
    for (const relationship of item.relationships ?? []) properties.set(relationship.name, new Relationship(relationship));
    const entity = new Entity(name, parent, item.abstract === true, properties);
    entities.set(name, entity);
    return entity;
  };
  for (const name of declared.keys()) build(name, []);
  return entities;
}
