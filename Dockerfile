# caudal-server. Build: docker build -t caudal-server .
# Run:   docker run -d -p 8080:8080 -p 1883:1883 -v caudal-data:/var/lib/caudal \
#          -e TOTP_SECRET_ENCRYPTION_KEY="$(openssl rand -base64 32)" caudal-server
# Keep that key: TOTP secrets stored under the old key cannot be read with a new one.
# Agent installers: the image holds no agent executables and no wixl. Build them with
# `npm run build:agent` and mount the folder: -v "$PWD/dist/agent:/app/dist/agent:ro". The Linux
# script and binary downloads then work; Windows MSIs also need wixl (Debian: wixl) in the image.
# No Docker engine runs on the development machines: scripts/container/image.test.ts follows this
# file's steps in a throw-away directory and starts the server from what they assemble.

# Node is pinned to the project's runtime (DESIGN.md: 24.21.0).
FROM node:24.21.0-bookworm-slim AS build
WORKDIR /build
COPY package.json package-lock.json ./
COPY scripts/container/build-image-root.sh ./
COPY shared ./shared
COPY server ./server
COPY installers/linux/linux-install.sh ./installers/linux/
COPY systemd/caudal-agent.service ./systemd/
# The operator console's sources and its build script (esbuild).
COPY console ./console
COPY scripts/build/console.ts scripts/build/console-bundle.ts scripts/build/console-tools.ts ./scripts/build/
# Production dependencies, server/ and shared/ into app/, the console built into app/dist/console;
# an empty data/ for the volume.
RUN sh build-image-root.sh . app data

FROM node:24.21.0-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    MQTT_PORT=1883 \
    DATA_DIR=/var/lib/caudal
# Root owns the application; the image's unprivileged `node` user (uid 1000) owns only the data
# directory, created before VOLUME so that a new volume starts owned by it.
COPY --from=build /build/app /app
COPY --from=build --chown=node:node /build/data /var/lib/caudal
WORKDIR /app
USER node
# SQLite database (WAL), generated JWT key when JWT_SECRET is not set.
VOLUME ["/var/lib/caudal"]
EXPOSE 8080 1883
# 200 for ok and degraded; 503 when the database cannot answer.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/health').then(r=>process.exit(r.status===200?0:1),()=>process.exit(1))"]
# server/main.ts closes every port and the database on SIGTERM (docker stop).
STOPSIGNAL SIGTERM
# server/node-options.ts: the young generation at 32 MB semi-spaces, whatever the host's memory.
ENV NODE_OPTIONS=--max-semi-space-size=32
CMD ["node", "server/main.ts"]
