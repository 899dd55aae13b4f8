# Dockerfile - ddbemu as a container image: one static executable on an
# empty base, a few megabytes in all.
#
#   docker build -t ddbemu .
#   docker run -p 8000:8000 ddbemu
#
# It replaces amazon/dynamodb-local by changing only the image: the
# entrypoint accepts DynamoDB Local's command lines (-jar DynamoDBLocal.jar
# -sharedDb -dbPath ./data ... are understood or ignored), the working
# directory is DynamoDB Local's, and the port is 8000. Testcontainers'
# modules need three more things (docs/testcontainers.md): a `java` on the
# PATH (testcontainers-go replaces the entrypoint with DynamoDB Local's java
# command line: ddbemu answers to that name, listening on every interface),
# DynamoDB Local's answer to GET / and its start lines (--as-dynamodb-local,
# in the entrypoint), and a /bin/sh with cat, awk and grep for the
# listening-port checks they run inside the container (busybox, static).
# scripts/check-image builds it and runs the result;
# packaging/testcontainers/verify replays each module against it.

# ---- build: Debian's compiler and static archives, the project's CMake build ----
FROM debian:bookworm-slim AS build

# Debian's libmicrohttpd.a needs GnuTLS, whose dependencies ship no static
# archives, and ddbemu serves plain HTTP: libmicrohttpd is rebuilt from
# Debian's own source package without HTTPS.
RUN echo "deb-src http://deb.debian.org/debian bookworm main" \
        > /etc/apt/sources.list.d/ddbemu-src.list \
    && apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        gcc libc6-dev make cmake pkg-config dpkg-dev busybox-static \
        libjansson-dev libsqlite3-dev libxxhash-dev zlib1g-dev libzstd-dev libssl-dev libyaml-dev \
    && mkdir /mhd && cd /mhd \
    && apt-get source --download-only libmicrohttpd \
    && dpkg-source -x libmicrohttpd_*.dsc src \
    && cd src \
    && ./configure --prefix=/usr/local --enable-static --disable-shared --disable-https \
        --without-gnutls --disable-curl --disable-doc --disable-examples --disable-tools \
    && make -j"$(nproc)" \
    && make install \
    && cd / && rm -rf /mhd /var/lib/apt/lists/*

# Only what the build reads, so that a change elsewhere (tests, docs,
# scripts) reuses this stage's cached layers.
COPY CMakeLists.txt /src/
COPY storage /src/storage
COPY api /src/api
COPY emulator /src/emulator
COPY bench /src/bench
RUN PKG_CONFIG_PATH=/usr/local/lib/pkgconfig \
        cmake -S /src -B /build -DCMAKE_BUILD_TYPE=Release -DDDB_STATIC=ON \
    && cmake --build /build --target ddbemu -j"$(nproc)" \
    && mkdir -p /out/usr/local/bin /out/etc /out/data /out/home/dynamodblocal /out/tmp \
    && strip -o /out/usr/local/bin/ddbemu /build/emulator/ddbemu \
    && ln -s ddbemu /out/usr/local/bin/java \
    && mkdir -p /out/bin && cp /bin/busybox /out/bin/busybox \
    && for tool in sh cat awk grep nc; do ln -s busybox "/out/bin/$tool"; done \
    && echo "ddbemu:x:10001:10001:ddbemu:/home/dynamodblocal:/nonexistent" > /out/etc/passwd \
    && echo "ddbemu:x:10001:" > /out/etc/group \
    && chmod 1777 /out/tmp

# ---- runtime: the executable, a user, two writable directories ----
FROM scratch
COPY --from=build /out/usr/local/bin/ /usr/local/bin/
COPY --from=build /out/bin/ /bin/
COPY --from=build /out/etc/ /etc/
COPY --from=build /out/tmp /tmp
COPY --from=build --chown=10001:10001 /out/data /data
COPY --from=build --chown=10001:10001 /out/home/dynamodblocal /home/dynamodblocal
USER 10001:10001
# DynamoDB Local's working directory: its compose files say -dbPath ./data.
WORKDIR /home/dynamodblocal
EXPOSE 8000
# For -dbPath /data (docker run -v ddb-data:/data ddbemu -dbPath /data).
VOLUME /data
HEALTHCHECK --interval=10s --timeout=5s --start-period=5s --retries=3 \
    CMD ["/usr/local/bin/ddbemu", "--health-check", "--port", "8000"]
# The one place where listening on every interface is right: explicitly here,
# in the entrypoint, so that a compose file's own command keeps it.
# --as-dynamodb-local: GET / answers as DynamoDB Local does (Testcontainers'
# .NET module waits for its 400), and its start lines go to stdout.
ENTRYPOINT ["/usr/local/bin/ddbemu", "--host", "0.0.0.0", "--as-dynamodb-local"]
CMD ["-port", "8000", "-inMemory"]
