// docstore: the JavaScript client of docserver (docs/PROTOCOL.md). No dependencies; Node >= 20
// over TCP, browsers over WebSocket.

export { connect, Client } from "./client.js";
export { Session } from "./session.js";
export { DocObject } from "./objects.js";
export { Subscription } from "./subscription.js";
export { Change } from "./changes.js";
export { Model, Entity, Attribute, Relationship } from "./model.js";
export { Connection, DEFAULT_MAX_LINE_BYTES } from "./connection.js";
export { TcpTransport, WebSocketTransport, DEFAULT_MAX_MESSAGE_BYTES } from "./transport.js";
export { argumentToWire } from "./arguments.js";
export { toWire, fromWire, entityOfID } from "./values.js";
export {
  DocstoreError, ProtocolError, InvalidParamsError, ConflictError, ValidationError, NotFoundError,
  AuthError, TooLargeError, StoreUnavailableError, TimeLimitError, ServerBusyError, HistoryExpired,
  NotCaughtUp, ConnectionError, TimeoutError, ResyncRequired, ModelError, ValueConversionError,
  ObjectDeletedError, FaultError, errorClassFor, errorFromResponse,
} from "./errors.js";
