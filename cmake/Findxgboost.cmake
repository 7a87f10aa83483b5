# Find module for XGBoost's C API. Debian 12's libxgboost-dev ships a CMake config whose targets file also
# imports the `xgboost` CLI from /usr/bin/xgboost, which no package installs, so find_package(xgboost CONFIG)
# fails fatally there. This module finds the header and the library directly and defines xgboost::xgboost.
find_path(XGBOOST_INCLUDE_DIR xgboost/c_api.h)
find_library(XGBOOST_LIBRARY NAMES xgboost)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(xgboost REQUIRED_VARS XGBOOST_LIBRARY XGBOOST_INCLUDE_DIR)
if(xgboost_FOUND AND NOT TARGET xgboost::xgboost)
  add_library(xgboost::xgboost UNKNOWN IMPORTED)
  set_target_properties(xgboost::xgboost PROPERTIES IMPORTED_LOCATION "${XGBOOST_LIBRARY}"
                                                    INTERFACE_INCLUDE_DIRECTORIES "${XGBOOST_INCLUDE_DIR}")
endif()
