# xchg entry points.
#   make run   install what is missing, build, and run the main job
#              (xchg compare on a default network), then a short real
#              exchange on 16 local ranks: xchg's executor against
#              MPI_Alltoall, both validated (scripts/run-mpi-demo.sh)
#   make pictures  build, then redraw the pictures of README.md and docs/
#              (scripts/make-pictures.sh into docs/pictures; commit them)
#   make test  build with -Werror and run every test, then again under
#              AddressSanitizer and UBSan, then the MPI tests with MPICH
#              (those two trees run a representative part: the checks of
#              the documents, the sources and the install, and the largest
#              cases, run in the plain tree alone; CMakeLists.txt says which),
#              then the executor under SimGrid's SMPI on a simulated torus,
#              then the fuzz harnesses over their kept corpora (clang)
BUILD      ?= build
BUILD_SAN  ?= build-san
BUILD_MPICH ?= build-mpich
BUILD_FUZZ ?= build-fuzz
BUILD_SMPI ?= build-smpi
JOBS       ?= 2
RUN_ARGS   ?= --topo torus:8x8 --machine paragon --m 8:65536

.PHONY: all deps build pictures run test test-plain test-san test-mpich test-smpi test-fuzz clean

all: build

deps:
	@bash scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DXCHG_WERROR=ON
	cmake --build $(BUILD) -j$(JOBS)

pictures: build
	bash scripts/make-pictures.sh $(BUILD)/xchg docs/pictures

# The build's output goes to a log, so what `make run` shows is the job's.
run: deps
	@mkdir -p $(BUILD)
	@echo "building xchg in $(BUILD)/ (output in $(BUILD)/build.log)"
	@{ cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DXCHG_WERROR=ON && \
	   cmake --build $(BUILD) -j$(JOBS); } >$(BUILD)/build.log 2>&1 || \
	 { tail -n 40 $(BUILD)/build.log; echo "make run: the build failed; see $(BUILD)/build.log" >&2; exit 1; }
	./$(BUILD)/xchg compare $(RUN_ARGS)
	bash scripts/run-mpi-demo.sh $(BUILD)

test: test-plain test-san test-mpich test-smpi test-fuzz

# Each ctest run in two passes: the tests that start no MPI ranks (or, the
# install test, 2 ranks for a moment), JOBS at a time, then those that do
# (label mpi_ranks), one at a time with nothing beside them (many
# oversubscribed ranks lose whole time slices to any busy process). Both
# passes run; the recipe fails if either did.
CTEST_PASSES = ctest --output-on-failure -j$(JOBS) -LE mpi_ranks; a=$$?; \
	ctest --output-on-failure -L mpi_ranks; b=$$?; [ $$a -eq 0 ] && [ $$b -eq 0 ]

test-plain: build
	cd $(BUILD) && $(CTEST_PASSES)

# Only what the tests run is built (the target xchg_check).
test-san: deps
	cmake -S . -B $(BUILD_SAN) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DXCHG_WERROR=ON -DXCHG_SANITIZE=ON
	cmake --build $(BUILD_SAN) --target xchg_check -j$(JOBS)
	cd $(BUILD_SAN) && $(CTEST_PASSES)

# The executor again with MPICH (it polls hard when oversubscribed: its MPI
# tests keep to small p, XCHG_MPI_TEST_PS and XCHG_MPI_OPS_PS in
# CMakeLists.txt; so does the sanitizer build's). Only what the mpi_* tests
# run is built (the target xchg_mpi_check): the library's and the CLI's own
# tests run in the plain and sanitizer trees.
test-mpich: deps
	cmake -S . -B $(BUILD_MPICH) -DCMAKE_BUILD_TYPE=Release -DXCHG_WERROR=ON -DXCHG_MPI=mpich
	cmake --build $(BUILD_MPICH) --target xchg_mpi_check -j$(JOBS)
	cd $(BUILD_MPICH) && ctest --output-on-failure -j1 -R '^mpi_'

# The executor and xchg-bench built with SimGrid's smpicc, run by smpirun on
# a simulated 8x8 torus (tests/smpi/exec.sh), held against xchg sim of the
# ordinary build. A tree of its own: smpicc's programs run only under smpirun.
test-smpi: build
	CC=smpicc cmake -S . -B $(BUILD_SMPI) -DCMAKE_BUILD_TYPE=Release -DXCHG_WERROR=ON -DXCHG_MPI=smpi \
	    -DXCHG_HOST_CLI=$(abspath $(BUILD))/xchg
	cmake --build $(BUILD_SMPI) -j$(JOBS)
	cd $(BUILD_SMPI) && ctest --output-on-failure

# The libFuzzer harnesses (tests/fuzz/), each run once over its kept corpus:
# every input the fuzzer found worth keeping, crashes included. A tree of
# its own, built with clang; only the harnesses are built. bench/fuzz.sh
# fuzzes for real (docs/fuzzing.md).
test-fuzz: deps
	CC=clang cmake -S . -B $(BUILD_FUZZ) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DXCHG_WERROR=ON -DXCHG_FUZZ=ON
	cmake --build $(BUILD_FUZZ) --target xchg_fuzz -j$(JOBS)
	cd $(BUILD_FUZZ) && ctest --output-on-failure -j$(JOBS) -R '^fuzz_'

clean:
	rm -rf $(BUILD) $(BUILD_SAN) $(BUILD_MPICH) $(BUILD_SMPI) $(BUILD_FUZZ)
