# caudal-server. Build: docker build -t caudal-server .
# Run:   docker run -d -p 8080:8080 -p 1883:1883 -v caudal-data:/var/lib/caudal \
#          -e TOTP_SECRET_ENCRYPTION_KEY="$(openssl rand -base64 32)" caudal-server
# Keep that key: TOTP secrets stored under the old key cannot be read with a new one.

# Node is pinned to the project's runtime (DESIGN.md: 24.21.0).
FROM node:24.21.0-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only. better-sqlite3 13 and @node-rs/argon2 ship prebuilt binaries,
# so nothing compiles and no build tools are needed.
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM node:24.21.0-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    MQTT_PORT=1883 \
    DATA_DIR=/var/lib/caudal
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY shared ./shared
COPY server ./server
# The image's unprivileged `node` user (uid 1000) owns only the data directory.
RUN mkdir -p /var/lib/caudal && chown node:node /var/lib/caudal
USER node
# SQLite database (WAL), generated JWT key when JWT_SECRET is not set.
VOLUME ["/var/lib/caudal"]
EXPOSE 8080 1883
# 200 for ok and degraded; 503 when the database cannot answer.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/health').then(r=>process.exit(r.status===200?0:1),()=>process.exit(1))"]
# server/main.ts closes every port and the database on SIGTERM (docker stop).
STOPSIGNAL SIGTERM
CMD ["node", "server/main.ts"]
