// Service worker of the browser edition: keeps a copy of every site file so the page also starts offline; online, the network always wins (no stale firmware after a rebuild).
const CACHE = "wts-site";

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const site = await (await fetch("site.json", { cache: "no-store" })).json();
    const files = [...new Set(["./", "site.json"].concat(site.pageFiles))];
    const cache = await caches.open(CACHE);
    await cache.addAll(files);
    await self.skipWaiting();
  })());
});

self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

self.addEventListener("fetch", (event) => {
  const req = event.request;
  if (req.method !== "GET" || new URL(req.url).origin !== self.location.origin) return;
  event.respondWith((async () => {
    const cache = await caches.open(CACHE);
    try {
      const res = await fetch(req);
      if (res.ok) cache.put(req, res.clone());
      return res;
    } catch (e) {
      const hit = await cache.match(req, { ignoreSearch: true });
      if (hit) return hit;
      throw e;
    }
  })());
});
