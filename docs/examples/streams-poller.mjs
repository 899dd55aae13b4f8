// SPDX-License-Identifier: MIT
//
// streams-poller.mjs - consume a DynamoDB stream with the AWS SDK for
// JavaScript v3 and hand on only the records a Lambda event source mapping
// with the filter of seed 003 would deliver:
//
//   { eventName: ["INSERT", "MODIFY"],
//     dynamodb: { NewImage: { entityType: { S: ["Order"] } } } }
//
// It works the same against ddbemu (Streams on the DynamoDB port) and against
// AWS (the Streams endpoint of the region). See docs/streams-poller.md.
//
//   node docs/examples/streams-poller.mjs TABLE [--endpoint http://127.0.0.1:8000]
//        [--from TRIM_HORIZON|LATEST] [--entity-type Order]
//
// As a library: createPoller({ streams, streamArn }) with a DynamoDBStreams
// client (the aggregated client of @aws-sdk/client-dynamodb-streams), then
// `await poller.poll()` returns the next batch of matching records. The
// module imports nothing itself, so it can be used with the caller's copy of
// the SDK.

/** The Lambda filter of seed 003 as a predicate over one stream record. */
export function orderFilter(entityTypes = ["Order"], eventNames = ["INSERT", "MODIFY"]) {
  return (record) =>
    eventNames.includes(record.eventName) &&
    entityTypes.includes(record.dynamodb?.NewImage?.entityType?.S);
}

/**
 * A poller over every shard of a stream. Shards are read parent before child
 * (ParentShardId), so the records of one item come out in the order they
 * were written; a closed shard is read to its end (GetRecords then has no
 * NextShardIterator) and its children start at TRIM_HORIZON. An expired
 * iterator (15 minutes) is renewed after the last sequence number read; a
 * trimmed position (24 hours) restarts at TRIM_HORIZON.
 */
export function createPoller({
  streams,
  streamArn,
  startingPosition = "LATEST",
  filter = orderFilter(),
  limit = 1000,
}) {
  // shardId -> { parent, iterator, lastSequence, done }
  const shards = new Map();
  let first = true;

  async function discover() {
    let start;
    do {
      const page = await streams.describeStream({
        StreamArn: streamArn,
        ...(start ? { ExclusiveStartShardId: start } : {}),
      });
      const desc = page.StreamDescription;
      for (const s of desc.Shards) {
        if (shards.has(s.ShardId)) continue;
        const closed = s.SequenceNumberRange?.EndingSequenceNumber !== undefined;
        // At start-up LATEST means "from now on": closed shards hold only the past.
        const skip = first && startingPosition === "LATEST" && closed;
        shards.set(s.ShardId, {
          parent: s.ParentShardId,
          position: first ? startingPosition : "TRIM_HORIZON",
          iterator: undefined,
          lastSequence: undefined,
          done: skip,
        });
      }
      start = desc.LastEvaluatedShardId;
    } while (start);
    first = false;
  }

  function ready(id) {
    const parent = shards.get(shards.get(id).parent);
    return !parent || parent.done;
  }

  async function iteratorFor(id, shard) {
    const params = { StreamArn: streamArn, ShardId: id };
    if (shard.lastSequence) {
      Object.assign(params, {
        ShardIteratorType: "AFTER_SEQUENCE_NUMBER",
        SequenceNumber: shard.lastSequence,
      });
    } else {
      params.ShardIteratorType = shard.position;
    }
    return (await streams.getShardIterator(params)).ShardIterator;
  }

  async function readShard(id, shard, out) {
    for (;;) {
      if (!shard.iterator) shard.iterator = await iteratorFor(id, shard);
      let resp;
      try {
        resp = await streams.getRecords({ ShardIterator: shard.iterator, Limit: limit });
      } catch (err) {
        if (err.name === "ExpiredIteratorException") {
          shard.iterator = undefined; // renewed after lastSequence
          continue;
        }
        if (err.name === "TrimmedDataAccessException") {
          shard.iterator = undefined;
          shard.lastSequence = undefined;
          shard.position = "TRIM_HORIZON";
          continue;
        }
        throw err;
      }
      for (const record of resp.Records) {
        shard.lastSequence = record.dynamodb.SequenceNumber;
        if (filter(record)) out.push(record);
      }
      shard.iterator = resp.NextShardIterator;
      if (!shard.iterator) {
        shard.done = true; // closed and read to its end
        return;
      }
      if (resp.Records.length === 0) return; // caught up with an open shard
    }
  }

  return {
    /** One pass over the stream: the matching records written since the last pass. */
    async poll() {
      await discover();
      const out = [];
      let progress = true;
      while (progress) {
        progress = false;
        for (const [id, shard] of shards) {
          if (shard.done || shard.visited || !ready(id)) continue;
          shard.visited = true;
          await readShard(id, shard, out);
          progress = true;
        }
      }
      for (const shard of shards.values()) shard.visited = false;
      return out;
    },
  };
}

// ---- command line ----

// The SDK from beside this file, or else from the current directory's
// node_modules (e.g. conformance/js after `npm ci`).
async function loadSdk(name) {
  try {
    return await import(name);
  } catch {
    const { createRequire } = await import("node:module");
    const { pathToFileURL } = await import("node:url");
    const mod = await import(pathToFileURL(createRequire(`${process.cwd()}/`).resolve(name)).href);
    return mod.default ?? mod;
  }
}

async function main(argv) {
  const args = { from: "LATEST", entityType: "Order" };
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--endpoint") args.endpoint = argv[++i];
    else if (argv[i] === "--from") args.from = argv[++i];
    else if (argv[i] === "--entity-type") args.entityType = argv[++i];
    else rest.push(argv[i]);
  }
  if (rest.length !== 1) {
    console.error("usage: streams-poller.mjs TABLE [--endpoint URL] [--from TRIM_HORIZON|LATEST]"
      + " [--entity-type Order]");
    process.exit(2);
  }
  const { DynamoDB } = await loadSdk("@aws-sdk/client-dynamodb");
  const { DynamoDBStreams } = await loadSdk("@aws-sdk/client-dynamodb-streams");
  const config = args.endpoint ? { endpoint: args.endpoint } : {};
  const table = await new DynamoDB(config).describeTable({ TableName: rest[0] });
  const streamArn = table.Table.LatestStreamArn;
  if (!streamArn) throw new Error(`table ${rest[0]} has no stream`);
  const poller = createPoller({
    streams: new DynamoDBStreams(config),
    streamArn,
    startingPosition: args.from,
    filter: orderFilter([args.entityType]),
  });
  for (;;) {
    for (const record of await poller.poll()) console.log(JSON.stringify(record));
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main(process.argv.slice(2)).catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
