/*
 * transfer_cli.h - the `ddbemu export` and `ddbemu import` subcommands
 * (transfer_cli.c), which main() hands the command line to.
 */
#ifndef DDB_EMULATOR_TRANSFER_CLI_H
#define DDB_EMULATOR_TRANSFER_CLI_H

#include <stdbool.h>

/* The subcommands' part of `ddbemu --help`. */
extern const char transfer_cli_help[];

/* Whether arg (argv[1]) names a subcommand. */
bool transfer_cli_is_command(const char *arg);

/* Runs the subcommand argv[0] with its options; returns the exit status. */
int transfer_cli_main(int argc, char **argv);

#endif
