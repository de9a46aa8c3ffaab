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
  obj = tbl(obj) or {}
  local status = tbl(obj.status)
  if status == nil then
    return "Progressing", "Waiting for OLM to compute the target namespaces"
  end

  for _, c in ipairs(items(status.conditions)) do
    if str(c.status) == "True" then
      local label = problems[str(c.type)] or problems[str(c.reason)]
      if label ~= nil then return "Degraded", join(": ", label, str(c.message)) end
    end
  end

  local namespaces = {}
  local all = false
  if type(status.namespaces) == "table" then
    for _, ns in ipairs(status.namespaces) do
      if ns == "" then
        all = true
      elseif type(ns) == "string" then
        namespaces[#namespaces + 1] = ns
      end
    end
  end
  if all then
    return "Healthy", "Targets all namespaces"
  end
  if #namespaces > 0 then
    local shown = {}
    for i = 1, #namespaces do
      if i > 5 then break end
      shown[#shown + 1] = namespaces[i]
    end
    local text = table.concat(shown, ", ")
    if #namespaces > 5 then text = text .. " and " .. (#namespaces - 5) .. " more" end
    return "Healthy", "Targets " .. text
  end
  if str(status.lastUpdated) ~= "" then
    return "Progressing", "Selects no namespace yet"
  end
  return "Progressing", "Waiting for OLM to compute the target namespaces"
end
