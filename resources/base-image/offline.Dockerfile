# Offline base: no registry needed. rootfs/ holds the host's own node binary, the shared libraries
# `ldd` lists for it, PM2 and its dependencies copied from Rightsize's node_modules, and the launchers.
FROM scratch
COPY rootfs/ /
ENV PATH=/usr/local/bin HOME=/root PM2_HOME=/root/.pm2 NODE_ENV=production
WORKDIR /srv
