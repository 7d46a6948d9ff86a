/* test_probe_json.c: `impactcv probe --json` prints exactly the contract's probe object
 * (../shared/spec/contract.md), with its values for a clip of known content; the human
 * summary names the findings. */
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "tests/capture/video_maker.h"
#include "tests/harness.h"

static const char *contract_keys[] = {"file", "codec", "width", "height", "frames", "nominal_fps", "capture_fps",
                                      "duration_s", "vfr", "duplicate_frames", "dropped_frames", "flicker_hz",
                                      "flash"};

TEST(test_probe_json_is_exactly_the_contract_object)
{
    /* 30 fps H.264 of a 240 fps capture, flash on at frame 12.25, frame 31 repeated */
    int code[48];
    double level[48];
    for (int k = 0; k < 48; k++) {
        code[k] = k;
        double frac = (k + 0.5 - 12.25);
        level[k] = 60.0 + 120.0 * (frac < 0 ? 0 : frac > 1 ? 1 : frac);
    }
    code[31] = 30;
    char path[1024];
    snprintf(path, sizeof path, "%s", th_tmp("clip.mkv"));
    ASSERT_EQ_INT(vm_encode(path, "30", "-c:v ffv1", 48, code, level), 0);
    th_proc p;
    int st = th_run_cli(&p, "probe --json --capture-fps 240 '%s'", path);
    ASSERT(st == 0, "status %d: %s", st, p.err);
    json_error_t je;
    json_t *o = json_loads(p.out, 0, &je);
    ASSERT(o && json_is_object(o), "not JSON: %s", je.text);
    size_t nk = sizeof contract_keys / sizeof contract_keys[0];
    int all = json_object_size(o) == nk;
    for (size_t i = 0; i < nk; i++)
        all = all && json_object_get(o, contract_keys[i]);
    const char *file = json_string_value(json_object_get(o, "file"));
    const char *codec = json_string_value(json_object_get(o, "codec"));
    long w = (long)json_integer_value(json_object_get(o, "width"));
    long frames = (long)json_integer_value(json_object_get(o, "frames"));
    double nominal = json_number_value(json_object_get(o, "nominal_fps"));
    double capture = json_number_value(json_object_get(o, "capture_fps"));
    double dur = json_number_value(json_object_get(o, "duration_s"));
    int vfr = json_is_true(json_object_get(o, "vfr"));
    json_t *dups = json_object_get(o, "duplicate_frames"), *drops = json_object_get(o, "dropped_frames");
    long dup0 = json_array_size(dups) == 1 ? (long)json_integer_value(json_array_get(dups, 0)) : -1;
    size_t ndrops = json_array_size(drops);
    int flicker_null = json_is_null(json_object_get(o, "flicker_hz"));
    json_t *flash = json_object_get(o, "flash");
    long flash_frame = (long)json_integer_value(json_object_get(flash, "frame"));
    double flash_t = json_number_value(json_object_get(flash, "time_s"));
    char file_copy[1024], codec_copy[64];
    snprintf(file_copy, sizeof file_copy, "%s", file ? file : "");
    snprintf(codec_copy, sizeof codec_copy, "%s", codec ? codec : "");
    json_decref(o);
    ASSERT(all, "keys differ from the contract's: %s", p.out);
    ASSERT_STR_CONTAINS(file_copy, "clip.mkv");
    ASSERT_STR_CONTAINS(codec_copy, "ffv1");
    ASSERT_EQ_INT(w, VM_W);
    ASSERT_EQ_INT(frames, 48);
    ASSERT_NEAR(nominal, 30.0, 1e-9);
    ASSERT_NEAR(capture, 240.0, 1e-9);
    ASSERT_NEAR(dur, 48.0 / 240.0, 0.001 / 8); /* Matroska's 1 ms tick, on the 8x faster clock */
    ASSERT_EQ_INT(vfr, 0);
    ASSERT_EQ_INT(dup0, 31);
    ASSERT_EQ_INT(ndrops, 0);
    ASSERT_TRUE(flicker_null);
    ASSERT_EQ_INT(flash_frame, 12);
    /* onset at frame 12.25 on the 240 fps clock: the 0.1 frame, plus half a
     * 1 ms Matroska tick rescaled */
    ASSERT_NEAR(flash_t, 12.25 / 240.0, 0.1 / 240.0 + 0.0005 / 8);

    st = th_run_cli(&p, "probe '%s'", path);
    ASSERT(st == 0, "status %d: %s", st, p.err);
    ASSERT_STR_CONTAINS(p.out, "frames    48");
    ASSERT_STR_CONTAINS(p.out, "duplicates 1: frames 31");
    ASSERT_STR_CONTAINS(p.out, "flash     first lit frame 12");
}
