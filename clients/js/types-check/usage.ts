// Compiled by `tsc --noEmit --strict` in the tests: the README's uses of the client, typed.
import {
  connect, Client, Session, DocObject, Subscription, Change, ConflictError, InvalidParamsError,
  TcpTransport, WebSocketTransport, SaveResult,
} from "../src/index.js";

async function example(): Promise<void> {
  const client: Client = await connect({ host: "127.0.0.1", port: 7878, token: null, timeout: 5000 });
  const session: Session = await client.session({ prefetch: 50 });
  const miles: DocObject = session.insert("Artist", { name: "Miles Davis", country: "US" });
  const kob = session.insert("Album", { title: "Kind of Blue", artist: miles, price: "9.99", released: new Date() });
  session.insert("Song", { title: "So What", plays: 7, album: kob });
  const result: SaveResult = await session.save();
  const seq: number = result.seq;
  const songs: DocObject[] = await session.fetch("Song", { predicate: "plays >= %d", arguments: [5], sort: "-plays", limit: 10, after: seq });
  const first = songs[0];
  const title: string = first.title;
  first.plays = first.plays + 1;
  await first.load();
  const album = await first.related("album");
  const count: number = await client.count("Song", { predicate: "album == %@", arguments: [kob] });
  const one: DocObject | null = await client.get(kob.id ?? "");
  const many: Array<DocObject | null> = await client.get([kob.id ?? ""]);
  try {
    await session.save();
  } catch (error) {
    if (error instanceof ConflictError) {
      for (const conflict of error.conflicts) console.log(conflict.id, conflict.expected, conflict.current);
    } else if (error instanceof InvalidParamsError) {
      console.log(error.position);
    }
  }
  const feed: Subscription = await client.subscribe({ entity: "Song", predicate: "plays > %d", arguments: [10], since: 0 });
  for await (const change of feed) {
    const c: Change = change;
    console.log(c.seq, c.author, c.inserted.map((item) => item.values?.title), c.removed);
    break;
  }
  const next: Change | null = await feed.next(1000);
  feed.close();
  for await (const change of client.changes(0, { limit: 100 })) console.log(change.seq);
  const tcp = await connect({ transport: () => new TcpTransport({ host: "127.0.0.1", port: 7878 }) });
  const browser = new WebSocketTransport({ url: "ws://127.0.0.1:8080/rpc" });
  const stop: () => void = client.onNotification((note) => console.log(note.method, note.params));
  stop();
  console.log(title, album, count, one, many, next, tcp, browser);
  client.close();
}

void example;
