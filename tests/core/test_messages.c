/* test_messages.c: messages that do not mislead (issue #20 item 9): a working
 * folder, removed after a failure, is named as the output folder the user gave. */
#include "core/core.h"
#include "tests/harness.h"

TEST(test_messages_working_folder_named_as_the_output_folder)
{
    icv_err err = {0};
    icv_err_set(&err, ICV_EINVAL, "/r/out.run.12.Ab3/tracks3d.csv: /r/out.run.12.Ab3/tracks3d.csv: bad; see "
                                  "/r/out.run.12.Ab3 and /r/out.run.12.Ab34/x");
    icv_err_rename_path(&err, "/r/out.run.12.Ab3", "/r/out");
    ASSERT(!strcmp(err.msg, "/r/out/tracks3d.csv: bad; see /r/out and /r/out.run.12.Ab34/x"), "got: %s", err.msg);
    ASSERT_EQ_INT(err.code, ICV_EINVAL);
}
