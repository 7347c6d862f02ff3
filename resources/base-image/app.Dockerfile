# A target app on top of a Rightsize base image. The engine chooses the command per launch mode.
ARG BASE_IMAGE
FROM ${BASE_IMAGE}
COPY srv/ /srv/
