/*
 * insight_cmd.h - `ddbemu insight`: fetches the access-pattern report from a
 * running ddbemu (GET /ddbemu/insight) and prints it as readable text.
 */
#ifndef DDB_EMULATOR_INSIGHT_CMD_H
#define DDB_EMULATOR_INSIGHT_CMD_H

/* argv[0] is "insight". Returns the process's exit status: 0, 1 when the
 * endpoint could not be read, 2 for a usage error. */
int insight_command(int argc, char **argv);

#endif
