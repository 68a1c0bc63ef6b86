# The calls test_null_handles makes: every public function (each SINEW_API
# and SINEW_PREP_API declaration of include/sinew/*.h) once for each of its
# pointer parameters, with NULL there and ARG_<type> (defined by the test)
# in every other place; each call returns its sinew_result, or -1 for a
# function returning something else. Run at build time:
#   cmake -DHEADERS_DIR=include/sinew -DOUT=null_calls.h -P null_calls.cmake
# A parameter of a type this script cannot class as a pointer or a scalar
# stops the build, naming the function: say here which it is.

cmake_minimum_required(VERSION 3.25)

# Types passed by value that are not pointers (enums and numbers).
set(scalar_types uint32_t uint64_t size_t int float double
    sinew_result sinew_solver sinew_shape_kind sinew_material_model sinew_prep_colouring)
# Pointer types whose spelling has no '*'.
set(pointer_types VkCommandBuffer sinew_assert_fn)

# "const sinew_body *" -> "const_sinew_body_p": the test's ARG_ macro.
function(mangle type out)
  string(REPLACE "*" " p " t "${type}")
  string(STRIP "${t}" t)
  string(REGEX REPLACE " +" "_" t "${t}")
  set(${out} "${t}" PARENT_SCOPE)
endfunction()

file(GLOB headers ${HEADERS_DIR}/*.h)
set(decls "")
foreach(header ${headers})
  file(READ ${header} text)
  # CMake lists split at ';' and bracket at '[': neither may reach one.
  string(REPLACE ";" "@" text "${text}")
  string(REGEX REPLACE "/\\*([^*]|\\*+[^*/])*\\*+/" " " text "${text}")
  string(REGEX REPLACE "//[^\n]*" " " text "${text}")
  string(REGEX REPLACE "\n#[^\n]*" "\n" text "${text}")
  string(REGEX REPLACE "([A-Za-z_][A-Za-z0-9_]*)\\[[^]\n]*\\]" "*\\1" text "${text}")
  string(REGEX REPLACE "[ \t\r\n]+" " " text "${text}")
  string(REGEX MATCHALL "SINEW_(PREP_)?API [^@]*@" found "${text}")
  list(APPEND decls ${found})
endforeach()

set(calls "")
set(rows "")
set(n 0)
foreach(decl ${decls})
  if(NOT decl MATCHES "^SINEW_(PREP_)?API (.*[ *])([a-z_0-9]+) ?\\((.*)\\) ?@$")
    message(FATAL_ERROR "null_calls.cmake: cannot read the declaration: ${decl}")
  endif()
  string(STRIP "${CMAKE_MATCH_2}" ret)
  set(fn ${CMAKE_MATCH_3})
  set(params_text "${CMAKE_MATCH_4}")
  string(REPLACE "," "@" params_text "${params_text}")
  string(REPLACE "@" ";" params "${params_text}")
  if(params STREQUAL "void")
    continue()
  endif()
  set(types "")
  set(pnames "")
  set(pointers "")
  foreach(p ${params})
    string(STRIP "${p}" p)
    if(NOT p MATCHES "^(.*[ *])([A-Za-z_][A-Za-z0-9_]*)$")
      message(FATAL_ERROR "null_calls.cmake: ${fn}: parameter '${p}' has no name")
    endif()
    string(STRIP "${CMAKE_MATCH_1}" type)
    set(pname ${CMAKE_MATCH_2})
    if(type MATCHES "\\*" OR type IN_LIST pointer_types)
      list(APPEND pointers 1)
    elseif(type IN_LIST scalar_types)
      list(APPEND pointers 0)
    else()
      message(FATAL_ERROR "null_calls.cmake: ${fn}: parameter '${pname}' of type '${type}': "
                          "add the type to scalar_types or pointer_types in tests/null_calls.cmake")
    endif()
    mangle("${type}" m)
    list(APPEND types ${m})
    list(APPEND pnames ${pname})
  endforeach()
  list(LENGTH types count)
  math(EXPR last "${count} - 1")
  foreach(i RANGE ${last})
    list(GET pointers ${i} is_pointer)
    if(NOT is_pointer)
      continue()
    endif()
    set(args "")
    foreach(j RANGE ${last})
      list(GET types ${j} t)
      if(j EQUAL i)
        list(APPEND args "NULL")
      else()
        list(APPEND args "ARG_${t}")
      endif()
    endforeach()
    list(JOIN args ", " args)
    list(GET pnames ${i} pname)
    if(ret STREQUAL "sinew_result")
      string(APPEND calls "static int null_call_${n}(void) { return (int)${fn}(${args}); }\n")
    else()
      string(APPEND calls "static int null_call_${n}(void) { (void)${fn}(${args}); return -1; }\n")
    endif()
    string(APPEND rows "    {\"${fn}\", \"${pname}\", null_call_${n}},\n")
    math(EXPR n "${n} + 1")
  endforeach()
endforeach()

list(LENGTH decls fn_count)
file(WRITE ${OUT}.tmp "/* Generated from the headers include/sinew/ by tests/null_calls.cmake: do not edit. */
${calls}
/* Each public function and pointer parameter, and the call passing NULL there. */
static const null_call null_calls[] = {
${rows}};

/* Public functions, those without pointer parameters included. */
#define NULL_FUNCTION_COUNT ${fn_count}
")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
