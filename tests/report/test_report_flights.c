/* test_report_flights.c: the free flights and contact stretches in report.html's
 * summary (issue #19 items 4, 5 and 7): results.json's `flights` and `contacts` read
 * back (report_results_read) and shown with their sigmas; a clip with no impact shows
 * its flight as the result; a warning is repeated beside the numbers it concerns. */
#include <stdlib.h>

#include "report/report.h"
#include "tests/harness.h"

/* results.json as analysis writes it (schema in docs/analysis.md), known values */
static const char results_one_bounce[] =
    "{\"schema\": \"impactcv-results-1\", \"gravity\": [0, -9.806, 0], \"gravity_sd\": [0, 0.012, 0],\n"
    " \"gravity_estimated\": true, \"outlier_frames\": [],\n"
    " \"impacts\": [{\"time_s\": 0.41234, \"e_kinematic\": 0.7821,\n"
    "   \"pre\": {\"v\": [0.6, -2.9, 0], \"window_s\": [0.2, 0.41], \"window_frames\": 12},\n"
    "   \"post\": {\"v\": [0.55, 2.27, 0], \"window_s\": [0.42, 0.7], \"window_frames\": 14},\n"
    "   \"uncertainty\": {\"e_kinematic\": 0.0042, \"time_s\": 0.0003}}],\n"
    " \"flights\": [\n"
    "  {\"t_start_s\": 0.0, \"t_end_s\": 0.4, \"frames\": [0, 12], \"n_frames\": 13, \"p\": [-0.25, 0.35, 0],\n"
    "   \"v\": [0.6, 0.5, 0], \"speed\": 0.78102, \"angle_deg\": 39.81, \"gravity\": [0, -9.7712, 0],\n"
    "   \"rms_m\": 0.00031, \"uncertainty\": {\"v\": [0.002, 0.003, 0], \"speed\": 0.0027, \"angle_deg\": 0.23,\n"
    "   \"gravity\": [0, 0.0871, 0]}},\n"
    "  {\"t_start_s\": 0.4333, \"t_end_s\": 0.6, \"frames\": [13, 18], \"n_frames\": 6, \"p\": [0.0, 0.02, 0],\n"
    "   \"v\": [0.55, 2.27, 0], \"speed\": 2.3357, \"angle_deg\": 76.38, \"gravity\": [0, -9.806, 0],\n"
    "   \"rms_m\": 0.00028, \"uncertainty\": {\"v\": [0.004, 0.006, 0], \"speed\": 0.0061, \"angle_deg\": 0.11,\n"
    "   \"gravity\": [0, 0, 0]}}],\n"
    " \"contacts\": [{\"frames\": [19, 26], \"t_start_s\": 0.6333, \"t_end_s\": 0.8667, \"kind\": \"sliding\"},\n"
    "  {\"frames\": [27, 35], \"t_start_s\": 0.9, \"t_end_s\": 1.1667, \"kind\": \"resting\"}]}\n";

static const char results_toss[] =
    "{\"schema\": \"impactcv-results-1\", \"gravity\": [0, -9.83, 0], \"gravity_sd\": [0, 0.05, 0],\n"
    " \"gravity_estimated\": true, \"outlier_frames\": [], \"impacts\": [],\n"
    " \"flights\": [{\"t_start_s\": 0.0, \"t_end_s\": 0.6667, \"frames\": [0, 10], \"n_frames\": 11,\n"
    "   \"p\": [-0.33, 0.1, 0], \"v\": [0.9, 3.3, 0], \"speed\": 3.4205, \"angle_deg\": 74.74,\n"
    "   \"gravity\": [0, -9.83, 0], \"rms_m\": 0.0007, \"uncertainty\": {\"v\": [0.01, 0.02, 0], \"speed\": 0.019,\n"
    "   \"angle_deg\": 0.21, \"gravity\": [0, 0.05, 0]}}],\n"
    " \"contacts\": []}\n";

static const char *report_of(const char *json, const char *const *warns, int n_warns, analysis_result *r)
{
    icv_experiment *exp = calloc(1, sizeof *exp);
    icv_err err = {0};
    th_write_file(th_tmp("results.json"), json);
    int rc = exp ? report_results_read(th_tmp("results.json"), r, &err) : -1;
    if (!rc) {
        snprintf(exp->name, sizeof exp->name, "ball");
        exp->n_cameras = 1;
        exp->n_markers = 1;
        exp->surface_kind = ICV_SURFACE_LINE_PX;
        report_inputs in = {.exp = exp, .result = r, .warnings = warns, .n_warnings = n_warns};
        rc = report_write(&in, th_tmp("report.html"), &err);
    }
    free(exp);
    if (rc)
        printf("    %s\n", err.msg);
    return rc ? NULL : th_read_file(th_tmp("report.html"));
}

TEST(test_report_flights_and_contacts_read_back_and_shown_with_sigmas)
{
    analysis_result *r = calloc(1, sizeof *r);
    ASSERT(r, "out of memory");
    const char *warns[] = {"analyze: frames 19-26 (t = 0.6333-0.8667 s): the body is moving (sliding, rolling or "
                           "rocking) on the surface: left out of gravity and of every flight's fit",
                           "analyze: impact at t = 0.41234 s: the flights on each side meet at t = 0.41250 +- "
                           "0.00030 s"};
    const char *html = report_of(results_one_bounce, warns, 2, r);
    /* read back exactly: every field the summary shows */
    int ok = r->n_flights == 2 && r->n_contacts == 2 && r->flights[0].frame_last == 12 &&
             r->flights[1].n_frames == 6 && fabs(r->flights[0].speed_sd - 0.0027) < 1e-12 &&
             fabs(r->flights[0].g_sd.y - 0.0871) < 1e-12 && r->contacts[0].sliding && !r->contacts[1].sliding &&
             r->contacts[1].frame_first == 27;
    free(r);
    ASSERT(ok, "results.json's flights or contacts not read back");
    ASSERT(html, "no report");
    const char *imp = strstr(html, "id=summary-impact-0"), *fl = strstr(html, "id=summary-flights"),
               *ct = strstr(html, "id=summary-contacts");
    ASSERT(imp && fl && ct && imp < fl && fl < ct, "the flights and contacts are not after the impact, in order");
    /* flight 1: frames, launch speed and angle +- sigma, own |g| +- sigma */
    ASSERT_STR_CONTAINS(fl, "<tr id=summary-flight-0><td>1</td><td>0&ndash;12 (13)</td><td>0.00000&ndash;0.40000</td>"
                            "<td>0.781 &plusmn; 0.0027</td><td>39.81 &plusmn; 0.23</td><td>9.771 &plusmn; 0.087</td>");
    /* flight 2, too short for its own g: says so, no sigma of 0 */
    ASSERT_STR_CONTAINS(fl, "<tr id=summary-flight-1><td>2</td><td>13&ndash;18 (6)</td>");
    ASSERT_STR_CONTAINS(fl, "<td>2.336 &plusmn; 0.0061</td><td>76.38 &plusmn; 0.11</td><td>&ndash; (too short to fit "
                            "its own; the clip's 9.806 used)</td>");
    ASSERT_STR_CONTAINS(ct, "<tr id=summary-contact-0><td>1</td><td>19&ndash;26</td><td>0.6333&ndash;0.8667</td>"
                            "<td>moving on the surface");
    ASSERT_STR_CONTAINS(ct, "<tr id=summary-contact-1><td>2</td><td>27&ndash;35</td><td>0.9000&ndash;1.1667</td>"
                            "<td>resting</td>");
    /* each warning beside its numbers: the contact's after the contacts' table, the
       impact's after the impact's table (and before the flights) */
    const char *wc = strstr(ct, "class=\"near-warnings bad\"><li>analyze: frames 19-26");
    ASSERT(wc != NULL, "the contact's warning is not beside the contacts");
    const char *wi = strstr(imp, "class=\"near-warnings bad\"><li>analyze: impact at t = 0.41234 s");
    ASSERT(wi && wi < fl, "the impact's warning is not beside the impact");
}

TEST(test_report_flight_only_clip_shows_its_flight_as_the_result)
{
    analysis_result *r = calloc(1, sizeof *r);
    ASSERT(r, "out of memory");
    const char *warns[] = {"analyze: no impact found (the smallest gap between the body and the surface is 82.0 mm "
                           "at t = 0.0000 s): measured as free flight, 1 flight"};
    const char *html = report_of(results_toss, warns, 1, r);
    free(r);
    ASSERT(html, "no report");
    const char *head = strstr(html, "<h3>Free flight: no impact in this clip, the flights are its result</h3>");
    ASSERT(head != NULL, "no flight-only heading");
    ASSERT_STR_CONTAINS(head, "<tr id=summary-flight-0><td>1</td><td>0&ndash;10 (11)</td><td>0.00000&ndash;0.66670"
                              "</td><td>3.421 &plusmn; 0.019</td><td>74.74 &plusmn; 0.21</td><td>9.83 &plusmn; 0.05</td>");
    ASSERT_STR_CONTAINS(head, "class=\"near-warnings bad\"><li>analyze: no impact found");
    ASSERT(!strstr(html, "id=summary-impact-0"), "an impact table for a clip with none");
    ASSERT(!strstr(html, "id=summary-contacts"), "a contacts table with no contact");
    const char *sec_end = strstr(html, "</section>");
    ASSERT(sec_end && head < sec_end, "the flight is not in the summary");
}
