# The peerpods operator image: `peerpods run peerpod-controller` (see config/manager/).
# The CLI runs from the TypeScript sources through tsx (a runtime dependency), so there is no build
# stage: production dependencies and the sources are all it needs.
FROM node:20-slim

# virsh for the libvirt provider (qemu+ssh:// URIs, as upstream, with the key from ssh-key-secret).
RUN apt-get update \
 && apt-get install -y --no-install-recommends libvirt-clients openssh-client ca-certificates \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force
COPY tsconfig.json ./
COPY bin ./bin
COPY src ./src
RUN ln -s /app/bin/peerpods.js /usr/local/bin/peerpods

ENV NODE_ENV=production
ENTRYPOINT ["peerpods"]
CMD ["run", "peerpod-controller"]
