#!/bin/sh
# Runs the Python tests with Debian's interpreter; exit 77 (ctest: skipped)
# with the reason when a Python dependency is missing locally.
for module in pytest numpy pandas; do
  if ! /usr/bin/python3 -c "import $module" 2>/dev/null; then
    echo "python_tests SKIPPED: /usr/bin/python3 has no $module (apt install python3-$module;" \
         "scripts/setup.sh installs it)"
    exit 77
  fi
done
cd "$1" || exit 1
exec /usr/bin/python3 -m pytest -q -p no:cacheprovider .
