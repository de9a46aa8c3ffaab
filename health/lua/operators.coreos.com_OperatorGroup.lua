-- Argo CD health check for operators.coreos.com/OperatorGroup (odlm-render, health/).
-- Healthy once OLM has written the target namespaces (status.namespaces, with "" meaning
-- all namespaces); Degraded while OLM reports a True MultipleOperatorGroup or
-- OperatorGroupServiceAccount condition (CSVs in the namespace cannot install then);
-- Progressing before OLM has seen the group or while it selects no namespace.
-- Uses only Lua's base and table libraries and checks every field's type.

local problems = {
  MultipleOperatorGroup = "Multiple OperatorGroups in the namespace",
  MultipleOperatorGroupsFound = "Multiple OperatorGroups in the namespace",
  OperatorGroupServiceAccount = "ServiceAccount not found",
  ServiceAccountNotFound = "ServiceAccount not found",
}

local function assess(obj)
  local status = tbl(obj.status)
  if status == nil then
    return "Progressing", "Waiting for OLM to compute the target namespaces"
  end

  for _, c in ipairs(conditions(status.conditions, "True")) do
    local label = problems[str(c.type)] or problems[str(c.reason)]
    if label ~= nil then return "Degraded", join(": ", label, str(c.message)) end
  end

  for _, ns in ipairs(tbl(status.namespaces) or {}) do
    if ns == "" then return "Healthy", "Targets all namespaces" end
  end
  local namespaces = strings(status.namespaces)
  if #namespaces > 0 then
    return "Healthy", "Targets " .. list(namespaces)
  end
  if str(status.lastUpdated) ~= "" then
    return "Progressing", "Selects no namespace yet"
  end
  return "Progressing", "Waiting for OLM to compute the target namespaces"
end
