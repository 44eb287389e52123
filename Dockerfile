# The peerpods operator image: `peerpods run peerpod-controller` (see config/manager/).
# Two stages: the first installs every dependency and builds (`npm ci` runs `prepare`, which is
# `npm run build`), then drops the dev dependencies; the image gets the build, the production
# node_modules and bin/ — no sources, no TypeScript, no tsx.
FROM node:20-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY scripts/build.mjs ./scripts/
COPY bin ./bin
COPY src ./src
RUN npm ci && npm prune --omit=dev && npm cache clean --force

FROM node:20-slim

# virsh for the libvirt provider (qemu+ssh:// URIs, as upstream, with the key from ssh-key-secret).
RUN apt-get update \
 && apt-get install -y --no-install-recommends libvirt-clients openssh-client ca-certificates \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY bin ./bin
RUN ln -s /app/bin/peerpods.js /usr/local/bin/peerpods

ENV NODE_ENV=production
ENTRYPOINT ["peerpods"]
CMD ["run", "peerpod-controller"]
