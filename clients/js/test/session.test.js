import { test } from "node:test";
import assert from "node:assert/strict";
import { startServer, connectTo, insertSample } from "./support.js";
import { FaultError, ModelError, ValueConversionError, ObjectDeletedError, DocObject } from "../src/index.js";

test("one save inserts related objects atomically and gives them permanent IDs and versions", async (t) => {
  const server = await startServer(t);
  const client = await connectTo(t, server);
  const { miles, kob, songs, result } = await insertSample(client);
  assert.match(kob.id, /^graph:\/\/[0-9a-fA-F-]+\/Album\/\d+$/);
  assert.equal(kob.version, 1);
  assert.equal(result.seq, 1);
  assert.equal(client.seq, 1);
  assert.equal(Object.keys(result.ids).length, 5);
  assert.ok(songs.every((song) => song.id !== null && !song.isInserted));
  assert.equal(miles.entity, "Artist");
});

test("the server keeps inverses: a song's album puts the song in the album's songs, read after a load", async (t) => {
  const server = await startServer(t);
  const client = await connectTo(t, server);
  const { kob, miles } = await insertSample(client);
  assert.ok(kob.isFault, "a saved object whose relationships the server changed is read again");
  assert.throws(() => kob.title, FaultError);
  await kob.load();
  assert.deepEqual(kob.songs.map((song) => song.title), ["So What", "Freddie Freeloader", "Blue in Green"]);
  const albums = await miles.related("albums");
  assert.deepEqual(albums.map((album) => album.title), ["Kind of Blue"]);
});

test("related objects are faults loaded on demand, several in one round trip", async (t) => {
  const server = await startServer(t);
  const client = await connectTo(t, server);
  await insertSample(client);
  const session = await client.session();
  const [song] = await session.fetch("Song", { predicate: "title == %@", arguments: ["So What"] });
  const album = song.album;
  assert.ok(album instanceof DocObject);
  assert.ok(album.isFault);
  assert.throws(() => album.title, (error) => error instanceof FaultError && /await obj.load\(\)/.test(error.message));
  const loaded = await song.related("album");
  assert.equal(loaded, album, "one object per ID in a session");
  assert.equal(album.title, "Kind of Blue");
  assert.equal(album.price, "9.99");
  assert.deepEqual(album.released, new Date("1959-08-17T00:00:00Z"));
  const siblings = await album.related("songs");
  assert.equal(siblings.length, 3);
  assert.ok(siblings.every((other) => !other.isFault));
  assert.ok(album.artist.isFault);
  await session.load();
  assert.equal(album.artist.name, "Miles Davis");
});

test("fetch takes predicates with arguments, sort keys, limit and offset; count honours them", async (t) => {
  const server = await startServer(t);
  const client = await connectTo(t, server);
  await insertSample(client);
  const popular = await client.fetch("Song", { predicate: "plays >= %d AND album.title BEGINSWITH[c] %@", arguments: [5, "kind"], sort: "-plays" });
  assert.deepEqual(popular.map((song) => [song.title, song.plays]), [["Blue in Green", 12], ["So What", 7]]);
  const page = await client.fetch("Song", { sort: ["title"], limit: 2, offset: 1 });
  assert.deepEqual(page.map((song) => song.title), ["Freddie Freeloader", "So What"]);
  const insensitive = await client.fetch("Song", { sort: [{ key: "title", ascending: false, caseInsensitive: true }] });
  assert.deepEqual(insensitive.map((song) => song.title), ["So What", "Freddie Freeloader", "Blue in Green"]);
  assert.equal(await client.count("Song"), 3);
  assert.equal(await client.count("Song", { predicate: "plays > %d", arguments: [5] }), 2);
  assert.equal(await client.count("Song", { offset: 2 }), 1);
  const ids = await client.fetchIds("Song", { predicate: "plays < %d", arguments: [5] });
  assert.equal(ids.length, 1);
  const albums = await client.fetch("Album", { predicate: "released < %@", arguments: [new Date("1960-01-01T00:00:00Z")] });
  assert.equal(albums.length, 1);
  const byObject = await client.count("Song", { predicate: "album == %@", arguments: [albums[0]] });
  assert.equal(byObject, 3);
  const byDecimal = await client.count("Album", { predicate: "price == %@", arguments: [{ decimal: "9.99" }] });
  assert.equal(byDecimal, 1);
});

test("get answers objects in order with null for a missing one; one ID answers one object", async (t) => {
  const server = await startServer(t);
  const client = await connectTo(t, server);
  const { kob } = await insertSample(client);
  const missing = kob.id.replace(/\/\d+$/, "/999");
  const session = await client.session();
  const [album, nothing] = await session.get([kob.id, missing]);
  assert.equal(album.title, "Kind of Blue");
  assert.equal(nothing, null);
  assert.equal((await session.get(kob.id)).id, kob.id);
  assert.deepEqual(await session.get([]), []);
});

test("updates send only the changed values with the version read; the object stays loaded", async (t) => {
  const server = await startServer(t);
  const client = await connectTo(t, server);
  await insertSample(client);
  const session = await client.session();
  const [song] = await session.fetch("Song", { predicate: "title == %@", arguments: ["So What"] });
  song.plays += 1;
  song.set("rating", 4.5);
  assert.deepEqual(song.changedKeys, ["plays", "rating"]);
  assert.ok(session.hasChanges);
  const result = await session.save();
  assert.equal(song.version, 2);
  assert.equal(result.versions[song.id], 2);
  assert.ok(!song.isFault);
  assert.equal(song.plays, 8);
  const [again] = await client.get([song.id]);
  assert.equal(again.rating, 4.5);
  assert.equal(again.plays, 8);
});

test("to-many relationships are arrays: add and remove change them, the inverse follows", async (t) => {
  const server = await startServer(t);
  const client = await connectTo(t, server);
  await insertSample(client);
  const session = await client.session();
  const [song] = await session.fetch("Song", { predicate: "title == %@", arguments: ["So What"] });
  const modal = session.insert("Tag", { label: "modal" });
  song.add("tags", modal);
  song.add("tags", modal);
  assert.equal(song.tags.length, 1);
  await session.save();
  assert.deepEqual((await modal.related("songs")).map((other) => other.title), ["So What"]);
  await song.load();
  song.remove("tags", modal);
  await session.save();
  await modal.load();
  assert.deepEqual(modal.songs, []);
});

test("delete rules run on the server: deleting an album deletes its songs (cascade)", async (t) => {
  const server = await startServer(t);
  const client = await connectTo(t, server);
  const { session, kob, songs, miles } = await insertSample(client);
  session.delete(kob);
  assert.ok(kob.isDeleted);
  const result = await session.save();
  assert.equal(result.deleted.length, 4);
  assert.ok(songs.every((song) => song.isDeleted));
  assert.throws(() => songs[0].title, ObjectDeletedError);
  assert.equal(await client.count("Song"), 0);
  await miles.load();
  assert.deepEqual(miles.albums, []);
});

test("rollback forgets changes and refresh re-reads objects", async (t) => {
  const server = await startServer(t);
  const client = await connectTo(t, server);
  await insertSample(client);
  const session = await client.session();
  const [song] = await session.fetch("Song", { predicate: "title == %@", arguments: ["So What"] });
  song.plays = 100;
  const tag = session.insert("Tag", { label: "gone" });
  session.rollback();
  assert.equal(song.plays, 7);
  assert.ok(!session.hasChanges);
  assert.throws(() => tag.label, ObjectDeletedError);
  song.plays = 50;
  await session.refresh(song);
  assert.equal(song.plays, 7);
});

test("a change to a fault is saved against the version read at save time", async (t) => {
  const server = await startServer(t);
  const client = await connectTo(t, server);
  const { songs } = await insertSample(client);
  const session = await client.session();
  const song = session.object(songs[0].id);
  assert.ok(song.isFault);
  song.plays = 70;
  await session.save();
  assert.equal((await client.get(songs[0].id)).plays, 70);
});

test("values of every type go to the server and back: date, decimal, binary, uuid, double specials", async (t) => {
  const server = await startServer(t);
  const client = await connectTo(t, server);
  const session = await client.session();
  const album = session.insert("Album", { title: "Bytes", cover: new Uint8Array([0, 1, 2, 254, 255]), price: 12n, released: new Date("2024-05-01T12:30:00.250Z") });
  const song = session.insert("Song", { title: "Specials", rating: NaN, uid: "123e4567-e89b-12d3-a456-426614174000", album });
  await session.save();
  const [readAlbum, readSong] = await client.get([album.id, song.id]);
  assert.deepEqual([...readAlbum.cover], [0, 1, 2, 254, 255]);
  assert.equal(readAlbum.price, "12");
  assert.equal(readAlbum.released.toISOString(), "2024-05-01T12:30:00.250Z");
  assert.ok(Number.isNaN(readSong.rating));
  assert.equal(readSong.uid.toLowerCase(), "123e4567-e89b-12d3-a456-426614174000");
  assert.equal(readSong.plays, 0, "the model's default");
});

test("wrong values, unknown entities and keys are refused before anything is sent", async (t) => {
  const server = await startServer(t);
  const client = await connectTo(t, server);
  const session = await client.session();
  assert.throws(() => session.insert("Planet", {}), (error) => error instanceof ModelError && /Artist, Album|Album, Artist/.test(error.message));
  const song = session.insert("Song", { title: "x" });
  assert.throws(() => { song.plays = 1.5; }, ValueConversionError);
  assert.throws(() => { song.plays = "many"; }, ValueConversionError);
  assert.throws(() => { song.plays = 2 ** 60; }, /past 2\^53/);
  assert.throws(() => song.set("nope", 1), ModelError);
  assert.throws(() => { song.rating = "high"; }, ValueConversionError);
  assert.throws(() => song.set("album", session.insert("Tag", { label: "t" })), /holds Album objects, not Tag/);
  assert.throws(() => session.insert("Album", { title: "x", price: 9.99 }), /decimal/);
  assert.throws(() => session.insert("Album", { title: "x", released: "1959" }), /a Date/);
  await assert.rejects(session.fetch("Song", { where: "x" }), /unknown fetch option where/);
});

async function until(condition, what) {
  for (let i = 0; i < 250; i++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.fail(`timed out waiting for ${what}`);
}

test("a session with mergeChanges shows other clients' commits; its own unsaved change wins without a conflict", async (t) => {
  const server = await startServer(t);
  const client = await connectTo(t, server);
  const { songs } = await insertSample(client);
  const mine = await client.session({ mergeChanges: true });
  t.after(() => mine.close());
  const song = await mine.get(songs[0].id);
  const gone = await mine.get(songs[1].id);
  song.rating = 3.5;
  const theirs = await client.session();
  const other = await theirs.get(songs[0].id);
  other.plays = 100;
  theirs.delete(await theirs.get(songs[1].id));
  await theirs.save();
  await until(() => song.version === 2 && gone.isDeleted, "the merge");
  assert.equal(song.plays, 100, "the committed value");
  assert.equal(song.rating, 3.5, "the unsaved change on top");
  await mine.save();
  const [read] = await client.get([song.id]);
  assert.deepEqual([read.plays, read.rating, read.version], [100, 3.5, 3]);
  assert.equal(mine.mergeError, null);
});

test("merge ignores changes not newer than what the session holds, and objects it does not hold", async (t) => {
  const server = await startServer(t);
  const client = await connectTo(t, server);
  const { songs } = await insertSample(client);
  const session = await client.session();
  const song = await session.get(songs[0].id);
  session.merge({ inserted: [], updated: [{ id: song.id, entity: "Song", version: 1, values: { ...song.toJSON().values, plays: 999 } }], deleted: [] });
  assert.equal(song.plays, 7);
  session.merge({ updated: [{ id: songs[1].id, entity: "Song", version: 5, values: {} }] });
  assert.equal(session.object(songs[1].id).isFault, true, "not added as loaded");
  session.merge({ updated: [{ id: song.id, entity: "Song", version: 2, values: null }] });
  assert.ok(song.isFault, "a newer change without values makes it a fault");
});
