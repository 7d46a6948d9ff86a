# impactcv: one non-recursive Makefile.
#
# Every module directory is a static library built from its *.c (and at most one
# *_bridge.cpp, the only C++). Sources are found by wildcard, so adding a file to a
# module, a test under tests/<module>/ or a benchmark bench/bench_*.c needs no edit
# here. Three variants are built from the same rule template: build/ (plain -O2),
# build-asan/ (AddressSanitizer + UndefinedBehaviorSanitizer) and build-fuzz/ (clang,
# libFuzzer's coverage + ASan + UBSan: the harnesses tests/fuzz/fuzz_*.c, make fuzz).

# As many jobs as cores unless -j is given: `make test` builds the ASan variant while
# the plain tests run (a sequential build and run took 22 of the 20 minutes allowed).
ifeq ($(filter -j%,$(MAKEFLAGS))$(filter j%,$(firstword $(MAKEFLAGS))),)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 2)
endif

MODULES := core solver capture calib track analysis synth report job
# Link order: a library before the ones it uses.
LINK_ORDER := job report analysis track calib synth capture solver core

PKGS := libavformat libavcodec libswscale libavutil gsl yaml-0.1 libxml-2.0 libzip jansson plplot libcrypto
PKGS_CXX := opencv4

# pkg-config is asked once, lazily, so that `make` can run scripts/deps.sh first on
# a machine that does not have the libraries yet.
lazy = $(eval $(1) := $$(shell $(2)))$($(1))
PKG_CFLAGS = $(call lazy,PKG_CFLAGS,pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(call lazy,PKG_LIBS,pkg-config --libs $(PKGS) 2>/dev/null)
CV_CFLAGS = $(call lazy,CV_CFLAGS,pkg-config --cflags $(PKGS_CXX) 2>/dev/null)
# Only the OpenCV modules the bridges include (calib3d brings features2d and flann):
# all of opencv4 made the program start in 0.18 s, these (and --as-needed) 0.04 s
# (still images are read and written by FFmpeg: capture/still_image.c).
CV_MODULES := calib3d imgproc core
CV_LIBDIRS = $(call lazy,CV_LIBDIRS,pkg-config --libs-only-L $(PKGS_CXX) 2>/dev/null)
CV_LIBS = $(CV_LIBDIRS) $(CV_MODULES:%=-lopencv_%)

# V=1 shows the full compiler commands.
Q := $(if $(V),,@)
CC ?= cc
CXX ?= c++
# -Wno-format-truncation: truncating into a fixed buffer is what snprintf is for
# (messages, labels); where a cut would be wrong (paths) the return is checked.
COMMON := -Wall -Wextra -Werror -Wno-format-truncation -g -MMD -MP -I. -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
CFLAGS_BASE := -std=c11 $(COMMON)
CXXFLAGS_BASE := -std=c++17 $(COMMON)
LDLIBS_BASE := -lm -lpthread

OPT_plain := -O2
# float-cast-overflow: a double out of an integer's range (or NaN) cast to it, undefined
# in C11 6.3.1.4. gcc 12's `undefined` leaves it out ((int)1e20 passed silently);
# clang 14's has it. Named so that either compiler checks it (docs/fuzzing.md).
SAN_UB := undefined,float-cast-overflow
OPT_asan := -O1 -fno-omit-frame-pointer -fsanitize=address,$(SAN_UB) -fno-sanitize-recover=$(SAN_UB)
# clang does not know gcc's -Wno-format-truncation: unknown -W options are not errors here.
OPT_fuzz := -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,$(SAN_UB) -fno-sanitize-recover=$(SAN_UB) \
	-Wno-unknown-warning-option
LDOPT_plain := -Wl,--as-needed
LDOPT_asan := -Wl,--as-needed -fsanitize=address,$(SAN_UB)
LDOPT_fuzz := -fsanitize=fuzzer,address,$(SAN_UB)
# The fuzz variant is clang's (libFuzzer); the others use the default compilers.
CC_plain = $(CC)
CC_asan = $(CC)
CC_fuzz := clang
CXX_plain = $(CXX)
CXX_asan = $(CXX)
CXX_fuzz := clang++

SHARED ?= $(abspath ../shared)
export ICV_SHARED := $(SHARED)
export ICV_ROOT := $(CURDIR)

module_c = $(wildcard $(1)/*.c)
module_cxx = $(wildcard $(1)/*.cpp)
CLI_SRC := $(wildcard cli/*.c)
# tests/fuzz/ holds the libFuzzer harnesses (each has its own entry point), not tests.
TEST_SRC := $(filter-out tests/fuzz/%,$(wildcard tests/*.c tests/*/*.c))
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
BENCH_SRC := $(wildcard bench/bench_*.c)

# $(1) = build dir, $(2) = variant (plain|asan|fuzz)
# $(1)/.flags holds the variant's compiler and options, rewritten only when they change:
# its objects depend on it, so a changed flag (a sanitizer added) rebuilds the variant.
define VARIANT
$(1)/.flags: FORCE
	@mkdir -p $$(@D)
	@echo '$$(CC_$(2)) $$(CXX_$(2)) $$(OPT_$(2)) $$(LDOPT_$(2))' | cmp -s - $$@ || \
	  echo '$$(CC_$(2)) $$(CXX_$(2)) $$(OPT_$(2)) $$(LDOPT_$(2))' > $$@

$(1)/%.o: %.c $(1)/.flags | deps
	@mkdir -p $$(@D)
	@echo "  CC   $$@"
	$$(Q)$$(CC_$(2)) $$(CFLAGS_BASE) $$(OPT_$(2)) $$(PKG_CFLAGS) -c $$< -o $$@

$(1)/%.o: %.cpp $(1)/.flags | deps
	@mkdir -p $$(@D)
	@echo "  CXX  $$@"
	$$(Q)$$(CXX_$(2)) $$(CXXFLAGS_BASE) $$(OPT_$(2)) $$(CV_CFLAGS) -c $$< -o $$@

$(foreach m,$(MODULES),
$(1)/lib$(m).a: $(patsubst %.c,$(1)/%.o,$(call module_c,$(m))) $(patsubst %.cpp,$(1)/%.o,$(call module_cxx,$(m))) $(1)/empty.o
	@mkdir -p $$(@D)
	@rm -f $$@
	@ar rcs $$@ $$^
)

$(1)/empty.o: | deps
	@mkdir -p $$(@D)
	@printf 'typedef int icv_empty_unit;\n' | $$(CC) -x c -c - -o $$@

$(1)/LIBS := $(foreach m,$(LINK_ORDER),$(1)/lib$(m).a)

$(1)/impactcv: $(patsubst %.c,$(1)/%.o,$(CLI_SRC)) $$($(1)/LIBS)
	@echo "  LD   $$@"
	$$(Q)$$(CXX_$(2)) $$(LDOPT_$(2)) -o $$@ $$^ $$(PKG_LIBS) $$(CV_LIBS) $$(LDLIBS_BASE)

$(1)/test_runner: $(patsubst %.c,$(1)/%.o,$(TEST_SRC)) $$($(1)/LIBS)
	@echo "  LD   $$@"
	$$(Q)$$(CXX_$(2)) $$(LDOPT_$(2)) -o $$@ $$^ $$(PKG_LIBS) $$(CV_LIBS) $$(LDLIBS_BASE)

$(1)/bench/%: $(1)/bench/%.o $$($(1)/LIBS)
	@echo "  LD   $$@"
	$$(Q)$$(CXX_$(2)) $$(LDOPT_$(2)) -o $$@ $$^ $$(PKG_LIBS) $$(CV_LIBS) $$(LDLIBS_BASE)

$(1)/tests/fuzz/fuzz_%: $(1)/tests/fuzz/fuzz_%.o $$($(1)/LIBS)
	@echo "  LD   $$@"
	$$(Q)$$(CXX_$(2)) $$(LDOPT_$(2)) -o $$@ $$^ $$(PKG_LIBS) $$(CV_LIBS) $$(LDLIBS_BASE)
endef

$(eval $(call VARIANT,build,plain))
$(eval $(call VARIANT,build-asan,asan))
$(eval $(call VARIANT,build-fuzz,fuzz))

# bench_track also times OpenCV's pipeline (the peer) through bench/cv_peer_bridge.cpp,
# the only C++ in bench/ (built by the %.cpp rule above; $^ links it).
build/bench/bench_track: build/bench/cv_peer_bridge.o

BENCH_BIN := $(patsubst bench/%.c,build/bench/%,$(BENCH_SRC))
FUZZ_BIN := $(patsubst %.c,build-fuzz/%,$(FUZZ_SRC))

.PHONY: all deps test test-plain test-asan asan demo bench accuracy fuzz fuzz-build clean realdata FORCE
FORCE:
.DEFAULT_GOAL := all

all: build/impactcv $(foreach m,$(MODULES),build/lib$(m).a)

deps:
	@scripts/deps.sh

# The suite runs twice: plain, then under ASan+UBSan. Each runner ends with the
# line "N passed, N failed, N skipped" and exits non-zero on any failure.
test: test-plain test-asan

test-plain: build/impactcv build/test_runner
	ICV_BIN=$(CURDIR)/build/impactcv build/test_runner

asan: build-asan/impactcv build-asan/test_runner

test-asan: test-plain asan
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	ICV_BIN=$(CURDIR)/build-asan/impactcv ICV_SANITIZED=1 build-asan/test_runner

# Long studies (many seeds, sweeps): the same assertions as the fast subset in
# `make test`, over more cases; prints its tables.
accuracy: build/impactcv build/test_runner
	ICV_BIN=$(CURDIR)/build/impactcv ICV_ACCURACY=1 build/test_runner

demo: build/impactcv
	@scripts/demo.sh

# Every real clip of examples/real/ (videos read from ../shared/data), one table
# (scripts/realdata.sh; skips when ../shared/data is absent).
realdata: build/impactcv
	@scripts/realdata.sh $(CURDIR)/build/impactcv

bench: build/impactcv $(BENCH_BIN)
	@scripts/bench.sh $(BENCH_BIN)

# Every libFuzzer harness, each run FUZZ_SECONDS from its seed corpus
# (tests/fuzz/corpus/<name>/, read only: new inputs go to build-fuzz/corpus/);
# fails on any crash, leak or sanitizer report (docs/fuzzing.md).
FUZZ_SECONDS ?= 60
# the harnesses' objects kept (make would delete them as intermediates)
.SECONDARY: $(FUZZ_SRC:%.c=build-fuzz/%.o)
fuzz-build: $(FUZZ_BIN)

fuzz: fuzz-build
	@scripts/fuzz.sh $(FUZZ_SECONDS) $(FUZZ_BIN)

clean:
	rm -rf build build-asan build-fuzz

-include $(shell find build build-asan build-fuzz -name '*.d' 2>/dev/null)
