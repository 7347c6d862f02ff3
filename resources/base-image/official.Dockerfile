# Official base: an official Node.js image (present locally or pulled), plus PM2 and the launchers.
ARG NODE_IMAGE
FROM ${NODE_IMAGE}
COPY rootfs/ /
ENV HOME=/root PM2_HOME=/root/.pm2 NODE_ENV=production
WORKDIR /srv
