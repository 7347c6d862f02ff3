# PostgreSQL from Debian's packages on an offline Debian root (no registry needed). The entrypoint
# honours the official postgres image's variables (POSTGRES_USER, POSTGRES_PASSWORD, POSTGRES_DB,
# POSTGRES_HOST_AUTH_METHOD) and runs /docker-entrypoint-initdb.d/*.sql and *.sh on first start.
ARG BASE_IMAGE
FROM ${BASE_IMAGE}
RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql \
  && rm -rf /var/lib/apt/lists/* && mkdir -p /docker-entrypoint-initdb.d /var/run/postgresql \
  && chown postgres:postgres /var/run/postgresql \
  && ln -s /usr/lib/postgresql/*/bin /usr/lib/postgresql/bin
COPY postgres-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
ENV PATH=/usr/lib/postgresql/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin PGDATA=/var/lib/postgresql/data
STOPSIGNAL SIGINT
EXPOSE 5432
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["postgres"]
