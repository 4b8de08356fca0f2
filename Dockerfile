# The docserver image: the JSON document store server, its store in the volume /data.
#   docker build -t docserver .
#   docker run -d -p 7878:7878 -v docserver-data:/data -e DOCSERVER_AUTH_TOKEN=… docserver
# See README.md, "Run in a container". No container engine runs in CI, so this file is checked
# by construction: Tests/Container/check_container.py (run by scripts/test.sh) builds the binary
# with the same script, checks with ldd + dpkg that the runtime stage installs every library it
# needs, and runs this file's ENV, ENTRYPOINT/CMD and HEALTHCHECK against the binary.

# Builder: the README's build, scripts/build.sh (it installs libyajl-dev, libjemalloc-dev and pkg-config, then
# builds the release docserver with the Swift runtime and Foundation linked in statically), with
# --full: every package trait, so that the image serves PostgreSQL stores, TLS and users.
FROM swift:6.3-bookworm AS builder
ARG DEBIAN_FRONTEND=noninteractive
WORKDIR /src
COPY . .
RUN ./scripts/build.sh --full

# Runtime: Debian and exactly the packages the binary's shared libraries come from (ldd):
# yajl; jemalloc, the server's allocator; libxml2, which Foundation's XMLParser reads Xcode models with, and the libraries it
# links (ICU, liblzma, zlib); and the C and C++ runtime libraries. No Swift toolchain or
# runtime files.
FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends libc6 libgcc-s1 libstdc++6 libyajl2 libjemalloc2 \
        libxml2 libicu72 liblzma5 zlib1g \
    && rm -rf /var/lib/apt/lists/*
RUN useradd --system --uid 10001 --user-group --no-create-home --home-dir /data \
        --shell /usr/sbin/nologin docserver \
    && mkdir /data \
    && chown docserver:docserver /data
COPY --from=builder /src/.build/release/docserver /usr/local/bin/docserver

USER docserver
WORKDIR /data
VOLUME /data
# 7878: the line protocol; 7879: HTTP, for people and tools (GET /healthz, /readyz, /metrics).
EXPOSE 7878 7879

# Listens on every address of the container, so a token is required: the server refuses to
# start without DOCSERVER_AUTH_TOKEN (`docker run -e DOCSERVER_AUTH_TOKEN=…`). Also read:
# DOCSERVER_MODEL (a model you mount: a JSON model file or an Xcode .xcdatamodeld /
# .xcdatamodel, docs/MODEL.md; the sample model when unset) and
# DOCSERVER_LOG_LEVEL (trace … critical, default info).
# The HTTP port answers /healthz, /readyz and /metrics (Prometheus) without a token, and serves
# the page at / and /rpc (the protocol over WebSocket and POST; its hello needs the token) without
# TLS: publish it only where your monitoring and your people reach it, or behind a TLS proxy
# (docs/OPERATIONS.md, docs/SECURITY.md).
ENV DOCSERVER_HOST=0.0.0.0 \
    DOCSERVER_PORT=7878 \
    DOCSERVER_HTTP_PORT=7879 \
    DOCSERVER_STORE=/data/store.json

# The image has neither curl nor wget: docserver ping --http GETs /readyz on DOCSERVER_HTTP_PORT
# (reading DOCSERVER_HOST like serve does) and exits 0 on 200: the store is open (and, over
# PostgreSQL, caught up) and the server is not shutting down.
HEALTHCHECK --interval=30s --timeout=10s --start-period=10s --retries=3 \
    CMD ["docserver", "ping", "--http", "/readyz", "--timeout", "5"]

# Exec form: docserver is PID 1 and gets docker stop's SIGTERM itself; it then stops accepting
# connections, answers the requests in progress (a save in progress becomes durable) and exits 0.
STOPSIGNAL SIGTERM
ENTRYPOINT ["docserver"]
CMD ["serve"]
