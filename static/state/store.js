// Where drafts are kept: one IndexedDB object store ("inspector" / "drafts"), not localStorage, because a 15 MB
// document does not fit localStorage's few MB. Its keys: "draft:<path>" (a page's latest work) and
// "entry:<id>:<path>" (one history entry's, static/state/entries.js). Nothing of it goes to the server.

const DB_NAME = "inspector", STORE = "drafts";

let opened = null;
function database() {
  if (!opened) {
    opened = new Promise(function (resolve, reject) {
      const request = indexedDB.open(DB_NAME, 1);
      request.onupgradeneeded = function () { request.result.createObjectStore(STORE); };
      request.onsuccess = function () { resolve(request.result); };
      request.onerror = function () { reject(request.error); };
    });
  }
  return opened;
}

function withStore(mode, action) {
  return database().then(function (db) {
    return new Promise(function (resolve, reject) {
      const tx = db.transaction(STORE, mode);
      const request = action(tx.objectStore(STORE));
      tx.oncomplete = function () { resolve(request.result); };
      tx.onerror = tx.onabort = function () { reject(tx.error); };
    });
  });
}

// get(key) -> Promise of the kept value (undefined: none); put(key, value), remove(key) -> Promise;
// removeEvery(prefix) -> Promise: every draft whose key starts with ``prefix`` goes (the keys hold page paths,
// which location.pathname gives percent-encoded, so no character of theirs sorts above U+FFFF). Each rejects when
// storage is off or full.
export const drafts = {
  get: function (key) { return withStore("readonly", function (s) { return s.get(key); }); },
  put: function (key, value) { return withStore("readwrite", function (s) { return s.put(value, key); }); },
  remove: function (key) { return withStore("readwrite", function (s) { return s.delete(key); }); },
  removeEvery: function (prefix) {
    return withStore("readwrite", function (s) { return s.delete(IDBKeyRange.bound(prefix, prefix + "\uffff")); });
  },
};

// Storage off: nothing kept, so a read finds nothing.
export function quietly(promise) { return promise.catch(function () { return null; }); }

// The later of two kept drafts ({saved: ms since the epoch, ...}), either of which may be missing.
export function newer(a, b) { return !a ? b : !b ? a : (b.saved > a.saved ? b : a); }
