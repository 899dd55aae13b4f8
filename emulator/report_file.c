/*
 * report_file.c - writes the access-pattern report into --db-path at stop
 * (report_file.h): to a temporary name, then renamed, so a reader never sees
 * half a report.
 */
#include "emulator/report_file.h"

#include "api/control/insight.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int report_file_write(struct db *db, const char *dir)
{
    char path[4200], tmp[4210];
    size_t len;
    char *text = insight_report_text(db, &len);
    FILE *f;
    int rc = 0;

    snprintf(path, sizeof path, "%s/%s", dir, REPORT_FILE_NAME);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    f = fopen(tmp, "w");
    if (!f || fwrite(text, 1, len, f) != len || fclose(f) != 0 || rename(tmp, path) != 0) {
        fprintf(stderr, "ddbemu: cannot write the access-pattern report to %s: %s\n", path,
                strerror(errno));
        rc = -1;
    }
    free(text);
    return rc;
}
