module {
  func.func @f() attributes {a = array<index: 0, 1>} {
    return
  }
}
