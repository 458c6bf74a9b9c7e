# xchg entry points.
#   make run   install what is missing, build, and run the main job
#              (xchg compare on a default network), then a short real
#              exchange on 16 local ranks: xchg's executor against
#              MPI_Alltoall, both validated (scripts/run-mpi-demo.sh)
#   make test  build with -Werror and run every test, then again under
#              AddressSanitizer and UBSan, then the MPI tests with MPICH
BUILD      ?= build
BUILD_SAN  ?= build-san
BUILD_MPICH ?= build-mpich
JOBS       ?= 2
RUN_ARGS   ?= --topo torus:8x8 --machine paragon --m 8:65536

.PHONY: all deps build run test test-plain test-san test-mpich clean

all: build

deps:
	@bash scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DXCHG_WERROR=ON
	cmake --build $(BUILD) -j$(JOBS)

# The build's output goes to a log, so what `make run` shows is the job's.
run: deps
	@mkdir -p $(BUILD)
	@echo "building xchg in $(BUILD)/ (output in $(BUILD)/build.log)"
	@{ cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DXCHG_WERROR=ON && \
	   cmake --build $(BUILD) -j$(JOBS); } >$(BUILD)/build.log 2>&1 || \
	 { tail -n 40 $(BUILD)/build.log; echo "make run: the build failed; see $(BUILD)/build.log" >&2; exit 1; }
	./$(BUILD)/xchg compare $(RUN_ARGS)
	bash scripts/run-mpi-demo.sh $(BUILD)

test: test-plain test-san test-mpich

test-plain: build
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS)

test-san: deps
	cmake -S . -B $(BUILD_SAN) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DXCHG_WERROR=ON -DXCHG_SANITIZE=ON
	cmake --build $(BUILD_SAN) -j$(JOBS)
	cd $(BUILD_SAN) && ctest --output-on-failure -j$(JOBS)

# The executor again with MPICH (it polls hard when oversubscribed: its MPI
# tests keep to small p, XCHG_MPI_TEST_PS).
test-mpich: deps
	cmake -S . -B $(BUILD_MPICH) -DCMAKE_BUILD_TYPE=Release -DXCHG_WERROR=ON -DXCHG_MPI=mpich
	cmake --build $(BUILD_MPICH) -j$(JOBS)
	cd $(BUILD_MPICH) && ctest --output-on-failure -j1 -R '^mpi_'

clean:
	rm -rf $(BUILD) $(BUILD_SAN) $(BUILD_MPICH)
