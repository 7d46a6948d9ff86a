/* `impactcv run -o DIR` never loses what the user has: a folder that is not an earlier
 * result is refused (kept whole) unless --force, and then its files are kept; an input
 * of the experiment is never a target; the user's files in a result folder survive a
 * re-run; Ctrl-C (SIGTERM here) leaves no working folder and DIR as it was. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/harness.h"

static const char *sample(const char *name)
{
    static char p[1024];
    snprintf(p, sizeof p, "%s/sample_videos/%s/experiment.yaml", th_root(), name);
    return p;
}

/* d/mine holding the user's thesis.tex (its path into path) */
static void users_folder(const char *d, char dir[1024], char path[1200])
{
    snprintf(dir, 1024, "%s/mine", d);
    mkdir(dir, 0755);
    snprintf(path, 1200, "%s/thesis.tex", dir);
    th_write_file(path, "chapter 1\n");
}

TEST(test_run_refuses_a_folder_that_is_not_a_result)
{
    const char *d = th_tmpdir();
    char dir[1024], path[1200];
    th_proc *p = malloc(sizeof *p);
    users_folder(d, dir, path);
    int st = th_run_cli(p, "run %s -o %s", sample("03_rod_drop_planar"), dir);
    ASSERT(st != 0, "exit %d for a folder of the user's", st);
    ASSERT_STR_CONTAINS(p->err, "no impactcv results");
    ASSERT_STR_CONTAINS(p->err, "--force");
    ASSERT_STR_CONTAINS(th_read_file(path), "chapter 1");
    ASSERT_EQ_INT(th_dir_count(dir, ""), 1);
    /* a plain file */
    snprintf(path, sizeof path, "%s/plain.txt", d);
    th_write_file(path, "keep\n");
    st = th_run_cli(p, "run %s -o %s", sample("03_rod_drop_planar"), path);
    ASSERT(st != 0, "exit %d for a plain file", st);
    ASSERT_STR_CONTAINS(p->err, "is a file");
    ASSERT_STR_CONTAINS(th_read_file(path), "keep");
    free(p);
}

TEST(test_run_never_targets_an_input_even_forced)
{
    th_proc *p = malloc(sizeof *p);
    char dir[1024], video[1100];
    snprintf(dir, sizeof dir, "%s/sample_videos/03_rod_drop_planar", th_root());
    snprintf(video, sizeof video, "%s/cam.mp4", dir);
    int before = th_dir_count(dir, "");
    int st = th_run_cli(p, "run %s -o %s --force", sample("03_rod_drop_planar"), dir);
    ASSERT(st != 0, "exit %d with -o on the experiment's folder", st);
    ASSERT_STR_CONTAINS(p->err, "holds the experiment's input");
    st = th_run_cli(p, "run %s -o %s --force", sample("03_rod_drop_planar"), video);
    ASSERT(st != 0, "exit %d with -o on the experiment's video", st);
    ASSERT_STR_CONTAINS(p->err, "is the experiment's input");
    ASSERT_EQ_INT(th_dir_count(dir, ""), before);
    struct stat sb;
    ASSERT(stat(video, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 1000, "the video is gone");
    free(p);
}

TEST(test_run_keeps_the_users_files)
{
    const char *d = th_tmpdir();
    char dir[1024], path[1200];
    th_proc *p = malloc(sizeof *p);
    users_folder(d, dir, path);
    int st = th_run_cli(p, "-q run %s -o %s --force", sample("03_rod_drop_planar"), dir);
    ASSERT(st == 0, "forced run: exit %d: %s", st, p->err);
    ASSERT_STR_CONTAINS(th_read_file(path), "chapter 1");
    snprintf(path, sizeof path, "%s/results.json", dir);
    ASSERT(th_read_file(path) != NULL, "no results.json");
    /* a note put into the result folder survives a re-run (report and exports again) */
    snprintf(path, sizeof path, "%s/exports/notes.txt", dir);
    th_write_file(path, "my note\n");
    st = th_run_cli(p, "-q run %s -o %s --from report", sample("03_rod_drop_planar"), dir);
    ASSERT(st == 0, "re-run: exit %d: %s", st, p->err);
    ASSERT_STR_CONTAINS(th_read_file(path), "my note");
    snprintf(path, sizeof path, "%s/thesis.tex", dir);
    ASSERT_STR_CONTAINS(th_read_file(path), "chapter 1");
    ASSERT_EQ_INT(th_dir_count(d, "mine."), 0);
    free(p);
}

TEST(test_run_interrupted_leaves_no_working_folder)
{
    if (th_sanitized())
        SKIP("timed against the plain build's run");
    const char *d = th_tmpdir();
    th_proc *p = malloc(sizeof *p);
    /* the signal lands mid-run: as soon as the run's working folder (DIR.run.*) exists,
       whatever the machine's speed (a fixed 1.5 s outlived the whole run once the
       calibration got faster); SIGTERM (a batch system's) and SIGINT (Ctrl-C) alike;
       the program's handler is installed even where the shell's & left SIGINT ignored */
    static const char *const sig[2] = {"TERM", "INT"}, *const code[2] = {"exit 143", "exit 130"};
    for (int k = 0; k < 2; k++) {
        char dir[1024];
        snprintf(dir, sizeof dir, "%s/out", d);
        int st = th_run_sh(p,
                           "%s -q run %s -o %s & pid=$!; i=0; while [ $i -lt 2000 ] && ! ls -d %s.run.* >/dev/null 2>&1;"
                           " do sleep 0.005; i=$((i+1)); done; kill -%s $pid; wait $pid; echo \"exit $?\"",
                           th_bin(), sample("01_rod_slope45_stereo"), dir, dir, sig[k]);
        ASSERT(st == 0, "shell: %d", st);
        ASSERT_STR_CONTAINS(p->out, code[k]); /* 128 + the signal: it died of it */
        ASSERT_EQ_INT(th_dir_count(d, "out"), 0);
    }
    free(p);
}
