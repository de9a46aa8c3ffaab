// Package naming owns the names, hashes, labels and annotation keys ODLM
// gives to the objects it creates: custom resource names derived from an
// OperandRequest, the data hashes stored in annotations, and the label
// and annotation keys shared across the project.
package naming
