# The load agent (src-main/load-agent/agent.ts) on top of a Rightsize base image: the engine's load
# code bundled, with autocannon and hdr-histogram-js beside it. The plan comes in $RIGHTSIZE_LOAD_PLAN.
ARG BASE_IMAGE
FROM ${BASE_IMAGE}
COPY opt/ /opt/
CMD ["node", "/opt/rightsize/load-agent/load-agent.js"]
