# ctest fuzz.fatbin_smoke and fuzz.ptx_smoke: a 20-second libFuzzer run on a fresh copy of the
# seed corpus, so the test never writes into the source tree and always starts from the same seeds.
# Usage: cmake -DFUZZER=... -DSEEDS=... -DWORK=... -DARTIFACTS=... [-DDICT=...] [-DEXTRA=...]
#        [-DMORE_SEEDS=...] -P RunSmoke.cmake   (DICT: a libFuzzer dictionary; EXTRA: further
#        libFuzzer flags, a ;-list; MORE_SEEDS: a second seed directory, copied into WORK too)
foreach(var FUZZER SEEDS WORK ARTIFACTS)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "RunSmoke.cmake: -D${var}=... is required")
  endif()
endforeach()

file(REMOVE_RECURSE ${WORK})
file(COPY ${SEEDS}/ DESTINATION ${WORK})
if(DEFINED MORE_SEEDS)
  file(COPY ${MORE_SEEDS}/ DESTINATION ${WORK})
endif()
file(MAKE_DIRECTORY ${ARTIFACTS})

set(dict_flag)
if(DEFINED DICT)
  set(dict_flag -dict=${DICT})
endif()
execute_process(
  COMMAND ${FUZZER} -max_total_time=20 -rss_limit_mb=2048 -timeout=10 ${dict_flag}
          -artifact_prefix=${ARTIFACTS} ${EXTRA} ${WORK}
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  get_filename_component(name ${FUZZER} NAME)
  message(FATAL_ERROR "${name} found a problem (exit ${rc}); reproducer in ${ARTIFACTS}")
endif()
