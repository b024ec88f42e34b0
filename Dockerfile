# caudal-server. Build: docker build -t caudal-server .
# Run:   docker run -d -p 8080:8080 -p 1883:1883 -v caudal-data:/var/lib/caudal \
#          -e TOTP_SECRET_ENCRYPTION_KEY="$(openssl rand -base64 32)" caudal-server
# Keep that key: TOTP secrets stored under the old key cannot be read with a new one.
# Agent installers work out of the box: the image holds the agent executables of every target,
# built by the `agent` stage as `npm run build:agent` builds them, and wixl (Debian) for the Windows
# MSIs. Set PUBLIC_URL (-e PUBLIC_URL=http://caudal.plant.local:8080) to the address agents reach the
# server on: through `-p` a download by localhost comes from outside the container and is refused.
# No Docker engine runs on the development machines: scripts/container/image.test.ts follows this
# file's steps in a throw-away directory and starts the server from what they assemble.

# Node is pinned to the project's runtime (DESIGN.md: 24.21.0).
# The agent's single executables (scripts/build/agent.ts): every dependency, devDependencies
# included (esbuild, postject, node-windows' WinSW); each target's official Node binary comes from
# the npm registry (node-<os>-<arch>, checked against its integrity), and binutils strips the Linux
# ones. The agent's sources and the build's tools stay in this stage: only dist/agent moves on.
FROM node:24.21.0-bookworm-slim AS agent
RUN apt-get update && apt-get install -y --no-install-recommends binutils binutils-aarch64-linux-gnu && rm -rf /var/lib/apt/lists/*
WORKDIR /build
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
COPY shared ./shared
COPY agent ./agent
# The agent's local page is built from console/agent-page with the console's icon.
COPY console ./console
COPY scripts/build ./scripts/build
RUN node scripts/build/agent.ts --out dist/agent

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
# wixl builds each project's Windows MSI (server/services/distribution/msi/).
RUN apt-get update && apt-get install -y --no-install-recommends wixl && rm -rf /var/lib/apt/lists/*
# Root owns the application; the image's unprivileged `node` user (uid 1000) owns only the data
# directory, created before VOLUME so that a new volume starts owned by it.
COPY --from=build /build/app /app
# The executables and their manifest.json, at the server's default AGENT_DIST_DIR.
COPY --from=agent /build/dist/agent /app/dist/agent
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
